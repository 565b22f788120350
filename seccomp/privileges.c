/*
 * seccomp/privileges.c: the sandboxed server keeps no privilege.
 *   - not dumpable: no core, and other processes of its user cannot ptrace it or
 *     read its memory through /proc;
 *   - capabilities: the bounding set is emptied (this needs CAP_SETPCAP; without
 *     it, e.g. run by hand by a normal user, the bounding set is left as is, which
 *     is harmless: no_new_privs and the execve ban mean no capability can ever be
 *     gained), then ambient, inheritable, permitted and effective sets are cleared;
 *   - no_new_privs: nothing it could execute would gain privileges (and seccomp
 *     requires it from an unprivileged process).
 * The result is checked, not assumed.
 */
#include <errno.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "internal.h"

static int drop_bounding_set(char *err, size_t errlen)
{
	cap_t now = cap_get_proc();
	cap_flag_value_t setpcap = CAP_CLEAR;

	if (!now || cap_get_flag(now, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap) < 0) {
		cap_free(now);
		return sandbox_error(err, errlen, errno, "reading the capabilities");
	}
	cap_free(now);
	if (setpcap != CAP_SET)
		return 0;	/* cannot, and need not: see above */
	for (cap_value_t cap = 0; cap < (cap_value_t)cap_max_bits(); cap++)
		if (cap_get_bound(cap) == 1 && cap_drop_bound(cap) < 0)
			return sandbox_error(err, errlen, errno, "dropping capability %d from the bounding set",
					     (int)cap);
	return 0;
}

static int clear_process_sets(char *err, size_t errlen)
{
	cap_t none = cap_init(), now;
	int rc = 0;

	if (!none)
		return sandbox_error(err, errlen, errno, "cap_init");
	if (cap_reset_ambient() < 0)
		rc = sandbox_error(err, errlen, errno, "clearing the ambient capabilities");
	else if (cap_set_proc(none) < 0)
		rc = sandbox_error(err, errlen, errno, "clearing the capability sets");
	else if (!(now = cap_get_proc()))
		rc = sandbox_error(err, errlen, errno, "cap_get_proc");
	else {
		if (cap_compare(now, none) != 0)
			rc = sandbox_error(err, errlen, EPERM, "capabilities still held after the drop");
		cap_free(now);
	}
	cap_free(none);
	return rc;
}

int sandbox_drop_privileges(char *err, size_t errlen)
{
	int rc;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return sandbox_error(err, errlen, errno, "prctl(PR_SET_DUMPABLE, 0)");
	rc = drop_bounding_set(err, errlen);
	if (!rc)
		rc = clear_process_sets(err, errlen);
	if (!rc && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		rc = sandbox_error(err, errlen, errno, "prctl(PR_SET_NO_NEW_PRIVS, 1)");
	return rc;
}
