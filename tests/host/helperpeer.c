/* tests/host/helperpeer.c: a fake peer of the helper <-> server protocol
 * (proto/proto.h) for tests/host/helper.suite. It builds its messages byte by
 * byte, not with proto/, so that it can get them wrong on purpose.
 *
 *   helperpeer server MODE SOCKET [MOUNTPOINT]  listen on SOCKET (it appears only once
 *                                  listening), take one connection (a request
 *                                  from mount.fuse.ext4, its fds closed), then:
 *     close      close without an answer (a server dying mid-handshake)
 *     stall      never answer
 *     badmagic   a verdict with a bad magic number
 *     oversized  a packet longer than any message
 *     fdverdict  a valid "ok" verdict carrying an fd
 *     truncated  a verdict whose text runs past the packet
 *     widen      an "ok" verdict that asks for allow_other and no
 *                default_permissions (a server compromised by its image),
 *                then wait for SERVE
 *     stop       an "ok" verdict, then, the moment MOUNTPOINT (the fifth
 *                argument) appears in the mount table, SIGSTOP the helper
 *                and exit (a helper stopped by its user after mounting)
 *   helperpeer client MODE SOCKET  connect to a server, send one bad request
 *                                  (garbage, nofds, threefds, notfuse,
 *                                  oversized, nul) and print the answer:
 *                                  "verdict ERRNO TEXT" or "closed"
 */
#include "../../proto/proto.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define BUF_MAX	(3 * PROTO_MAX_MSG)

struct msg {
	uint8_t b[BUF_MAX];
	size_t len;
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void put(struct msg *m, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		m->b[m->len++] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static void put_fill(struct msg *m, int c, size_t n)
{
	memset(m->b + m->len, c, n);
	m->len += n;
}

/* A header for a payload of plen bytes. */
static void header(struct msg *m, uint32_t magic, uint16_t type, uint32_t plen)
{
	m->len = 0;
	put(m, magic, 4);
	put(m, PROTO_VERSION, 2);
	put(m, type, 2);
	put(m, plen, 4);
	put(m, 0, 4);
}

static void request(struct msg *m, const char *opts, size_t olen, const char *src, size_t slen)
{
	header(m, PROTO_MAGIC, PROTO_REQUEST, (uint32_t)(8 + olen + slen));
	put(m, 0, 4);
	put(m, olen, 2);
	put(m, slen, 2);
	put_bytes(m, opts, olen);
	put_bytes(m, src, slen);
}

static void verdict(struct msg *m, uint32_t magic, int32_t err, uint32_t flags, const char *text,
		    size_t textlen)
{
	header(m, magic, PROTO_VERDICT, (uint32_t)(12 + strlen(text)));
	put(m, (uint32_t)err, 4);
	put(m, flags, 4);
	put(m, textlen, 2);
	put(m, 0, 2);
	put_bytes(m, text, strlen(text));
}

static void send_fds(int sock, const struct msg *m, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)m->b, .iov_len = m->len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds) {
		struct cmsghdr *c;

		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		die("sendmsg");
}

static void addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		die("socket path too long");
	strcpy(sa->sun_path, path);
}

/* Does /proc/self/mountinfo list a mount on mnt? */
static bool mounted(const char *mnt)
{
	char line[4096], want[PATH_MAX + 3];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	snprintf(want, sizeof(want), " %s ", mnt);
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* Waits (at most 30 s) for a mount on mnt: the mount table wakes poll() on
 * every change, so the helper is stopped right after its mount appears. */
static void stop_when_mounted(int conn, const char *mnt)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct pollfd p = { .events = POLLPRI };

	p.fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (p.fd < 0 || getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		die("mountinfo/SO_PEERCRED");
	for (int i = 0; i < 300 && !mounted(mnt); i++)
		poll(&p, 1, 100);
	if (!mounted(mnt) || kill(cred.pid, SIGSTOP))
		die("no mount to stop the helper at");
	close(p.fd);
}

/* Takes one request (closing the fds that came with it) and answers as MODE says. */
static int server(const char *mode, const char *path, const char *mnt)
{
	static struct msg m;
	struct sockaddr_un sa;
	char tmp[sizeof(sa.sun_path) + 8];
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m.b, .iov_len = sizeof(m.b) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	int lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), conn, null;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	addr(&sa, tmp);
	if (lsock < 0 || bind(lsock, (struct sockaddr *)&sa, sizeof(sa)) || listen(lsock, 1) ||
	    rename(tmp, path))
		die(path);
	conn = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0 || recvmsg(conn, &mh, MSG_CMSG_CLOEXEC) < 0)
		die("accept/recvmsg");
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		for (size_t i = 0; c->cmsg_type == SCM_RIGHTS &&
		     i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++)
			close(((int *)CMSG_DATA(c))[i]);
	if (!strcmp(mode, "stall")) {
		sleep(3600);
	} else if (!strcmp(mode, "badmagic")) {
		verdict(&m, 0xdeadbeef, 0, 0, "", 0);
		send_fds(conn, &m, NULL, 0);
	} else if (!strcmp(mode, "oversized")) {
		static char text[4001];

		memset(text, 'x', 4000);
		verdict(&m, PROTO_MAGIC, 0, 0, text, 4000);
		put_fill(&m, 'y', 8000);
		send_fds(conn, &m, NULL, 0);
	} else if (!strcmp(mode, "fdverdict")) {
		null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		verdict(&m, PROTO_MAGIC, 0, PROTO_VER_DEFPERM, "", 0);
		send_fds(conn, &m, &null, 1);
	} else if (!strcmp(mode, "truncated")) {
		verdict(&m, PROTO_MAGIC, 22, 0, "short", 900);
		send_fds(conn, &m, NULL, 0);
	} else if (!strcmp(mode, "widen")) {
		verdict(&m, PROTO_MAGIC, 0, PROTO_VER_ALLOW_OTHER, "", 0);
		send_fds(conn, &m, NULL, 0);
		recv(conn, m.b, sizeof(m.b), 0);
	} else if (!strcmp(mode, "stop") && mnt) {
		verdict(&m, PROTO_MAGIC, 0, PROTO_VER_DEFPERM, "", 0);
		send_fds(conn, &m, NULL, 0);
		stop_when_mounted(conn, mnt);
	} else if (strcmp(mode, "close")) {
		fprintf(stderr, "helperpeer: unknown server mode '%s'\n", mode);
		return 2;
	}
	close(conn);
	return 0;
}

static uint32_t get(const uint8_t *p, int bytes)
{
	uint32_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* "verdict ERRNO TEXT" from a verdict packet of len (>= 28) bytes. */
static void print_verdict(const uint8_t *b, size_t len)
{
	size_t tl = get(b + PROTO_HDR_LEN + 8, 2);

	if (tl > len - PROTO_HDR_LEN - 12)
		tl = len - PROTO_HDR_LEN - 12;
	printf("verdict %d %.*s\n", (int)(int32_t)get(b + PROTO_HDR_LEN, 4), (int)tl,
	       (const char *)b + PROTO_HDR_LEN + 12);
}

/* Sends one bad request as MODE says and prints the server's answer. */
static int client(const char *mode, const char *path)
{
	static struct msg m;
	static char big[PROTO_MAX_STR];
	struct sockaddr_un sa;
	struct timeval tv = { .tv_sec = 30 };
	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC), img = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int good[2] = { fuse, img }, three[3] = { fuse, img, img }, nofuse[2] = { img, img };
	ssize_t n;

	addr(&sa, path);
	if (sock < 0 || fuse < 0 || img < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		die(path);
	request(&m, "", 0, "/dev/fake", 9);
	if (!strcmp(mode, "garbage")) {
		int r = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (r < 0 || read(r, m.b, 40) != 40)
			die("/dev/urandom");
		m.len = 40;
		send_fds(sock, &m, NULL, 0);
	} else if (!strcmp(mode, "nofds")) {
		send_fds(sock, &m, NULL, 0);
	} else if (!strcmp(mode, "threefds")) {
		send_fds(sock, &m, three, 3);
	} else if (!strcmp(mode, "notfuse")) {
		send_fds(sock, &m, nofuse, 2);
	} else if (!strcmp(mode, "oversized")) {
		memset(big, 'x', sizeof(big));
		request(&m, big, 4000, big, PROTO_MAX_STR);
		put_fill(&m, 'z', 400);
		send_fds(sock, &m, good, 2);
	} else if (!strcmp(mode, "nul")) {
		request(&m, "ro\0rw", 5, "/dev/fake", 9);
		send_fds(sock, &m, good, 2);
	} else {
		fprintf(stderr, "helperpeer: unknown client mode '%s'\n", mode);
		return 2;
	}
	n = recv(sock, m.b, sizeof(m.b), 0);
	if (n < PROTO_HDR_LEN + 12)
		puts("closed");
	else
		print_verdict(m.b, (size_t)n);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "server"))
		return server(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if (argc == 4 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3]);
	fprintf(stderr, "usage: helperpeer server|client MODE SOCKET [MOUNTPOINT]\n");
	return 2;
}
