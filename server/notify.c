/* server/notify.c: the sd_notify(3) protocol (readiness, status, stopping)
 * from a sandboxed process. libsystemd's sd_notify() opens a new socket for
 * every message, which the seccomp filter forbids; so the datagram socket
 * NOTIFY_SOCKET names is connected once, before the sandbox, and every message
 * after that is one sendmsg() on it, a call the allowlist has anyway (the
 * helper protocol). The sandbox keeps the fd (an AF_UNIX socket). */
#include "notify.h"
#include "log.h"
#include "printable.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* systemd 252 drops a notification longer than NOTIFY_BUFFER_MAX (PIPE_BUF) */
#define NOTIFY_MAX 4096

static int notify_fd = -1;

static void cannot(const char *path, const char *why)
{
	char *name = ec_printable(path);

	ec_log(EC_LOG_ERR, "ext4cell-server: NOTIFY_SOCKET=%s: %s; systemd will not hear "
	       "that the server is ready\n", name ? name : "?", why);
	free(name);
}

void ec_notify_open(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path)
		return;
	len = strlen(path);
	/* "/path" needs its NUL in sun_path; "@name" is abstract: '@' becomes NUL */
	if ((path[0] != '/' && path[0] != '@') || len < 2 ||
	    len > sizeof(sa.sun_path) - (path[0] == '/')) {
		cannot(path, "not a socket path or @abstract name that fits sockaddr_un");
		return;
	}
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
					  (path[0] == '/')))) {
		cannot(path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	notify_fd = fd;
	unsetenv("NOTIFY_SOCKET");
}

void ec_notify(const char *fmt, ...)
{
	char msg[NOTIFY_MAX];
	struct iovec iov = { .iov_base = msg };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	va_list ap;

	if (notify_fd < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	iov.iov_len = strlen(msg);
	if (sendmsg(notify_fd, &mh, MSG_NOSIGNAL) < 0)
		ec_log(EC_LOG_WARNING, "ext4cell-server: telling systemd \"%.*s\": %s\n",
		       (int)strcspn(msg, "\n"), msg, strerror(errno));
}
