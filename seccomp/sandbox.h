/*
 * seccomp/sandbox.h: the ext4cell-server sandbox, entered once after the server has
 * received its fds and before it reads the image (DESIGN.md section 4, SECURITY.md).
 *
 * ext4cell_sandbox_enter() makes the calling process unable to do anything but
 * serve FUSE requests from the fds it already holds:
 *   - closes every fd above 2 that carries authority the server does not need
 *     (directories, O_PATH fds, character devices other than /dev/fuse, sockets
 *     other than AF_UNIX); it keeps /dev/fuse, block devices, regular files (the
 *     image), AF_UNIX sockets (the helper connection, systemd's notification
 *     socket), pipes and anonymous fds;
 *   - if it may (CAP_SYS_ADMIN), moves into new empty network and IPC namespaces;
 *   - lowers resource limits (no core dumps, few fds, bounded address space, bounded
 *     tasks) and marks the process non-dumpable;
 *   - drops every capability (bounding, permitted, effective, inheritable, ambient)
 *     and sets no_new_privs;
 *   - loads the seccomp allowlist of the given mode for all threads; any other
 *     system call kills the whole process (SIGSYS), and the kernel logs it.
 * It is irreversible. It returns 0, or -errno with a one-line reason in err.
 */
#ifndef EXT4CELL_SANDBOX_H
#define EXT4CELL_SANDBOX_H

#include <stddef.h>
#include <stdio.h>

enum ext4cell_sandbox_mode {
	EXT4CELL_SANDBOX_CLASSIC = 0,	/* file data through FUSE READ/WRITE */
	EXT4CELL_SANDBOX_IOMAP = 1,	/* the kernel does file I/O; server registers devices */
};

int ext4cell_sandbox_enter(int mode, char *err, size_t errlen);

/* Writes the allowlist of a mode, one system call per line with its argument
 * filter and the reason it is needed, for `ext4cell-server --print-seccomp`. */
void ext4cell_sandbox_print(FILE *out, int mode);

#endif
