/*
 * seccomp/sandbox.c: ext4cell_sandbox_enter(), the order of the sandbox steps.
 * Fds are closed and namespaces entered while the process still has its
 * capabilities; limits and the capability drop come next; the seccomp filter is
 * last, so the steps before it may use system calls it forbids.
 * Test builds (SANITIZE=1) also arm the forbidden act named by the environment
 * variable EXT4CELL_SANDBOX_TEST_TRIGGER (seccomp/triggers.h) for SIGUSR1.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sandbox.h"
#include "internal.h"

#ifdef EXT4CELL_TEST_TRIGGERS
#include <stdlib.h>
#include "triggers.h"

static int arm_test_trigger(char *err, size_t errlen)
{
	const char *name = getenv("EXT4CELL_SANDBOX_TEST_TRIGGER");

	return name && *name && ext4cell_trigger_arm(name, err, errlen) ? -EINVAL : 0;
}
#else
static int arm_test_trigger(char *err, size_t errlen)
{
	(void)err, (void)errlen;
	return 0;
}
#endif

int sandbox_error(char *err, size_t errlen, int errnum, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - n, ": %s", strerror(errnum));
	return -errnum;
}

int ext4cell_sandbox_enter(int mode, char *err, size_t errlen)
{
	int rc;

	if (mode != EXT4CELL_SANDBOX_CLASSIC && mode != EXT4CELL_SANDBOX_IOMAP)
		return sandbox_error(err, errlen, EINVAL, "sandbox mode %d", mode);
	sandbox_prepare_sanitizer();
	rc = sandbox_close_fds(err, errlen);
	if (!rc)
		rc = sandbox_unshare(err, errlen);
	if (!rc)
		rc = sandbox_set_limits(err, errlen);
	if (!rc)
		rc = sandbox_drop_privileges(err, errlen);
	if (!rc)
		rc = arm_test_trigger(err, errlen);
	if (!rc)
		rc = sandbox_load_policy(mode, err, errlen);
	return rc;
}
