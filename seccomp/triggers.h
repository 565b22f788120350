/*
 * seccomp/triggers.h: test builds only. Acts the sandbox must forbid, one per
 * class (open a path, socket, execve, fork, ptrace, mount, an executable mapping,
 * an ioctl not on the list, ...). tests/unit/seccomp_test runs each in a forked
 * child; a test build of ext4cell-server runs one on SIGUSR1
 * (--sandbox-test-trigger=NAME) so tests/host/seccomp.suite can watch the kernel
 * kill a serving server. Release builds link none of this (seccomp/build.mk).
 */
#ifndef EXT4CELL_TRIGGERS_H
#define EXT4CELL_TRIGGERS_H

#include <stddef.h>

struct ext4cell_trigger {
	const char *name;	/* for --sandbox-test-trigger */
	const char *what;	/* for test output */
	void (*act)(void);	/* returns when the kernel lets the act through */
	unsigned kill_modes;	/* bit (1 << mode) for each mode whose sandbox kills it */
};

/* The table, ended by an entry with a NULL name. */
extern const struct ext4cell_trigger ext4cell_triggers[];

/* Arms trigger `name`: SIGUSR1 will run it. 0, or -1 with a reason in err. */
int ext4cell_trigger_arm(const char *name, char *err, size_t errlen);

#endif
