/* server/conn.c: socket mode of ext4cell-server, the server side of the helper
 * protocol (proto/). Everything before the sandbox (peer check, timeouts, fd
 * checks) is here; after it only sendmsg/recvmsg are used (seccomp/policy.c). */
#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#define WAIT_SECONDS	60		/* longest wait for the helper's next message */

int ec_conn_listen_fd(char *err, size_t errlen)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	char seen[128];
	int n;

	/* sd_listen_fds() removes the variables: say what they were first */
	snprintf(seen, sizeof(seen), "LISTEN_PID=%.20s LISTEN_FDS=%.20s, this is pid %d",
		 pid ? pid : "unset", fds ? fds : "unset", (int)getpid());
	n = sd_listen_fds(1);
	if (n == 1)
		return SD_LISTEN_FDS_START;
	if (n < 0)
		snprintf(err, errlen, "--socket needs exactly one socket from socket activation, "
			 "the variables are unusable (%s): %s", seen, strerror(-n));
	else
		snprintf(err, errlen, "--socket needs exactly one socket from socket activation, "
			 "found %d (%s)", n, seen);
	return -1;
}

int ec_conn_verdict(int sock, int error, uint32_t flags, const char *text)
{
	uint8_t buf[PROTO_MAX_MSG];
	int len = proto_encode_verdict(buf, error, flags, text);

	return len < 0 ? -EINVAL : proto_send(sock, buf, (size_t)len, NULL, 0);
}

static int check_fds(const struct proto_msg *m, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(m->fds[0], &st) || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 10 ||
	    minor(st.st_rdev) != 229) {
		snprintf(err, errlen, "the first fd of the request is not /dev/fuse");
		return -1;
	}
	if (fstat(m->fds[1], &st) || !(S_ISBLK(st.st_mode) || S_ISREG(st.st_mode))) {
		snprintf(err, errlen, "%s: the device fd is not a block device or regular file",
			 m->source);
		return -1;
	}
	return 0;
}

static int peer_and_timeouts(int sock, char *err, size_t errlen)
{
	struct timeval tv = { .tv_sec = WAIT_SECONDS };
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		snprintf(err, errlen, "fd %d is not a connected unix socket: %s", sock,
			 strerror(errno));
		return -1;
	}
	if (cred.uid != 0) {
		snprintf(err, errlen, "peer pid %d runs as uid %u, not root: refused",
			 (int)cred.pid, (unsigned)cred.uid);
		return -1;
	}
	if (setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		snprintf(err, errlen, "socket timeouts: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int ec_conn_request(int sock, struct proto_msg *m, char *err, size_t errlen)
{
	static uint8_t buf[PROTO_MAX_MSG + 1];

	if (peer_and_timeouts(sock, err, errlen))
		return -1;
	if (proto_recv(sock, buf, 1u << PROTO_REQUEST, m, err, errlen)) {
		ec_conn_verdict(sock, EPROTO, 0, err);
		return -1;
	}
	if (check_fds(m, err, errlen)) {
		ec_conn_verdict(sock, EINVAL, 0, err);
		close(m->fds[0]);
		close(m->fds[1]);
		return -1;
	}
	return 0;
}

int ec_conn_wait_serve(int sock, char *err, size_t errlen)
{
	static uint8_t buf[PROTO_MAX_MSG + 1];
	struct proto_msg m;

	return proto_recv(sock, buf, 1u << PROTO_SERVE, &m, err, errlen);
}
