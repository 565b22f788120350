/*
 * seccomp/fds.c: closes the fds above 2 that carry authority the sandboxed server
 * must not have. The rule is by kind, so the server does not need to pass a list:
 *   closed: directories and O_PATH fds (lookups relative to them), character
 *           devices other than /dev/fuse (ttys, /dev/kvm, ...), sockets of any
 *           family but AF_UNIX (network);
 *   kept:   /dev/fuse, block devices and regular files (the filesystem image),
 *           AF_UNIX sockets (the helper connection, systemd's notification
 *           socket, stderr when it is the journal), pipes and anonymous fds
 *           (epoll, eventfd: they reach nothing outside the process).
 * A regular file inherited by mistake is kept too: the caller (systemd, the
 * helper, a test) must not pass such fds; SECURITY.md says so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

#define FUSE_DEV_MAJOR 10	/* MISC_MAJOR */
#define FUSE_DEV_MINOR 229

static bool fd_is_needed(int fd)
{
	struct stat st;
	int flags = fcntl(fd, F_GETFL);
	int domain;
	socklen_t len = sizeof(domain);

	if (flags < 0 || fstat(fd, &st) < 0 || (flags & O_PATH))
		return false;
	switch (st.st_mode & S_IFMT) {
	case S_IFDIR:
		return false;
	case S_IFCHR:
		return major(st.st_rdev) == FUSE_DEV_MAJOR && minor(st.st_rdev) == FUSE_DEV_MINOR;
	case S_IFSOCK:
		return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
		       domain == AF_UNIX;
	default:
		return true;
	}
}

/* /proc/self/fd lists fds in order, so closing the ones already seen is safe. */
int sandbox_close_fds(char *err, size_t errlen)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;

	if (!dir)
		return sandbox_error(err, errlen, errno, "listing open fds: /proc/self/fd");
	while ((de = readdir(dir))) {
		int fd = atoi(de->d_name);

		if (fd > 2 && fd != dirfd(dir) && !fd_is_needed(fd))
			close(fd);
	}
	closedir(dir);
	return 0;
}
