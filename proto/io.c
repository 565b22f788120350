/* proto/io.c: sending and receiving protocol messages (one SOCK_SEQPACKET packet
 * each) with their fds (SCM_RIGHTS); every fd that arrives with a message that
 * is not accepted is closed here. */
#include "proto.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Room for more fds than any message may carry, so that stuffing shows. */
#define CMSG_FDS	8

int proto_send(int sock, const uint8_t *buf, size_t len, const int *fds, int nfds)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int) * PROTO_MAX_FDS)];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds < 0 || nfds > PROTO_MAX_FDS)
		return -EINVAL;
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.space;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		ctl.h.cmsg_level = SOL_SOCKET;
		ctl.h.cmsg_type = SCM_RIGHTS;
		ctl.h.cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(&ctl.h), fds, sizeof(int) * (size_t)nfds);
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

/* Collects the fds of every SCM_RIGHTS block into fds (at most max; any beyond
 * are closed and counted in *extra) and returns their number; *bad is set if
 * other control data came. */
static int take_fds(struct msghdr *msg, int *fds, int max, int *extra, int *bad)
{
	int n = 0;

	*extra = *bad = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t cnt;
		int fd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0)) {
			*bad = 1;
			continue;
		}
		cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < cnt; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (n < max) {
				fds[n++] = fd;
			} else {
				close(fd);
				++*extra;
			}
		}
	}
	return n;
}

static void close_fds(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

int proto_recv(int sock, uint8_t *buf, unsigned expect, struct proto_msg *m,
	       char *err, size_t errlen)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int) * CMSG_FDS)];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = PROTO_MAX_MSG + 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
			      .msg_controllen = sizeof(ctl.space) };
	int fds[PROTO_MAX_FDS], nfds, extra, bad, e;
	ssize_t n;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		e = errno;
		snprintf(err, errlen, "%s", e == EAGAIN ? "timed out" : strerror(e));
		errno = e;
		return -1;
	}
	nfds = take_fds(&msg, fds, PROTO_MAX_FDS, &extra, &bad);
	if (bad) {
		snprintf(err, errlen, "message with control data other than fds");
	} else if (extra || (msg.msg_flags & MSG_CTRUNC)) {
		snprintf(err, errlen, "message with too many fds");
	} else if (n == 0) {
		/* an empty packet is the end of the connection, with any fds it carried */
		close_fds(fds, nfds);
		snprintf(err, errlen, "connection closed");
		errno = ECONNRESET;
		return -1;
	} else if ((size_t)n > PROTO_MAX_MSG || (msg.msg_flags & MSG_TRUNC)) {
		snprintf(err, errlen, "message too long (more than %d bytes)", PROTO_MAX_MSG);
	} else if (!proto_decode(buf, (size_t)n, fds, nfds, expect, m, err, errlen)) {
		return 0;
	}
	close_fds(fds, nfds);
	errno = EPROTO;
	return -1;
}
