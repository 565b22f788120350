/*
 * seccomp/internal.h: the steps of ext4cell_sandbox_enter(), one file each, and the
 * limits they share. Every step returns 0 or -errno with a one-line reason in err.
 */
#ifndef EXT4CELL_SANDBOX_INTERNAL_H
#define EXT4CELL_SANDBOX_INTERNAL_H

#include <stddef.h>

/* Upper bounds for the sandboxed server (see limits.c and SECURITY.md). */
#define SANDBOX_MAX_FDS		16		/* RLIMIT_NOFILE */
#define SANDBOX_MAX_TASKS	0		/* RLIMIT_NPROC: single-threaded, no children */
#define SANDBOX_AS_BUDGET	(4ULL << 30)	/* RLIMIT_AS above the size at entry */

/* sandbox.c: formats "what: strerror(errnum)" into err, returns -errnum. */
int sandbox_error(char *err, size_t errlen, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

void sandbox_prepare_sanitizer(void);				/* sanitizer.c */
int sandbox_close_fds(char *err, size_t errlen);		/* fds.c */
int sandbox_unshare(char *err, size_t errlen);			/* namespaces.c */
int sandbox_set_limits(char *err, size_t errlen);		/* limits.c */
int sandbox_drop_privileges(char *err, size_t errlen);		/* privileges.c */
int sandbox_load_policy(int mode, char *err, size_t errlen);	/* policy.c */

#endif
