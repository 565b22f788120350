/* helper/client.c: the helper's side of the protocol (proto/): connect to the
 * root-owned server socket, send the fds and the request, wait (bounded) for the
 * verdict, send SERVE after mounting. The socket path and the wait may be changed
 * through the environment only when the real user is root (tests). */
#include "helper.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define SOCKET_PATH	"/run/ext4cell/ext4.sock"
#define WAIT_SECONDS	30

static const char *root_env(const char *name, const char *dflt)
{
	const char *v = getuid() == 0 ? getenv(name) : NULL;

	return v && *v ? v : dflt;
}

static int wait_seconds(void)
{
	int s = atoi(root_env("EXT4CELL_TIMEOUT", "0"));

	return s > 0 && s <= 3600 ? s : WAIT_SECONDS;
}

int helper_connect(void)
{
	const char *path = root_env("EXT4CELL_SOCKET", SOCKET_PATH);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = wait_seconds() };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int sock;

	if (strlen(path) >= sizeof(sa.sun_path))
		helper_fail(EXIT_USAGE, "server socket path too long: %s", path);
	strcpy(sa.sun_path, path);
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		helper_fail(EXIT_SYSTEM, "socket: %s", strerror(errno));
	if (connect(sock, (struct sockaddr *)&sa, sizeof(sa)))
		helper_fail(EXIT_SYSTEM, "cannot reach the ext4cell server at %s: %s "
			    "(is ext4cell.socket running?)", path, strerror(errno));
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		helper_fail(EXIT_SYSTEM, "%s: cannot identify the server: %s", path, strerror(errno));
	if (cred.uid != 0)
		helper_fail(EXIT_SYSTEM, "%s: the server socket belongs to uid %u, not root: refusing",
			    path, (unsigned)cred.uid);
	if (setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		helper_fail(EXIT_SYSTEM, "socket timeouts: %s", strerror(errno));
	helper_say("connected to the server at %s (pid %d)", path, (int)cred.pid);
	return sock;
}

uint32_t helper_request(int sock, int fusefd, int devfd, uint32_t flags,
			const char *options, const char *source)
{
	static uint8_t buf[PROTO_MAX_MSG + 1];
	static struct proto_msg m;
	int fds[2] = { fusefd, devfd };
	char err[256];
	int len, rc;

	len = proto_encode_request(buf, flags, options, source);
	if (len < 0)
		helper_fail(EXIT_USAGE, "source name or option list too long");
	rc = proto_send(sock, buf, (size_t)len, fds, 2);
	if (rc)
		helper_fail(EXIT_SYSTEM, "sending the request to the server: %s", strerror(-rc));
	if (proto_recv(sock, buf, 1u << PROTO_VERDICT, &m, err, sizeof(err))) {
		if (errno == EAGAIN)
			helper_fail(EXIT_MOUNT, "%s: the server did not answer within %d s; "
				    "nothing mounted", source, wait_seconds());
		if (errno == ECONNRESET)
			helper_fail(EXIT_MOUNT, "%s: the server closed the connection without an "
				    "answer (see its log); nothing mounted", source);
		helper_fail(EXIT_MOUNT, "%s: bad answer from the server: %s; nothing mounted",
			    source, err);
	}
	if (m.error)
		helper_fail(EXIT_MOUNT, "refused by the server: %s (%s)",
			    m.text[0] ? m.text : "no reason given", strerror(m.error));
	if (m.text[0])
		helper_say("server: %s", m.text);
	helper_say("the server accepts %s (%s mode)", source,
		   m.flags & PROTO_VER_IOMAP ? "iomap" : "classic");
	return m.flags;
}

int helper_serve(int sock)
{
	uint8_t buf[PROTO_HDR_LEN];
	int len = proto_encode_serve(buf);

	return proto_send(sock, buf, (size_t)len, NULL, 0);
}
