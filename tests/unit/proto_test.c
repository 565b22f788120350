/* tests/unit/proto_test.c: the helper <-> server protocol (proto/): encoders and
 * decoder round-trip; every malformed, oversized or fd-stuffed message is
 * rejected (and its fds closed); random mutations never crash (run under ASan). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "../../proto/proto.h"

static int failures;
static uint8_t buf[PROTO_MAX_MSG + 64];
static struct proto_msg m;
static char err[256];

static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond) {
		printf("# last reason: %s\n", err);
		failures++;
	}
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static const int two_fds[2] = { 100, 101 };	/* never used as fds by the decoder */
#define ALL_TYPES ((1u << PROTO_REQUEST) | (1u << PROTO_VERDICT) | (1u << PROTO_SERVE))

static int decode(size_t len, int nfds)
{
	return proto_decode(buf, len, two_fds, nfds, ALL_TYPES, &m, err, sizeof(err));
}

static void roundtrips(void)
{
	int len = proto_encode_request(buf, PROTO_REQ_RO, "errors=continue,kernel", "/dev/vdb");

	check(len > 0 && !decode((size_t)len, 2) && m.type == PROTO_REQUEST &&
	      m.flags == PROTO_REQ_RO && !strcmp(m.options, "errors=continue,kernel") &&
	      !strcmp(m.source, "/dev/vdb") && m.nfds == 2 && m.fds[1] == 101,
	      "proto/request round-trip");
	len = proto_encode_verdict(buf, EUCLEAN, 0, "bad superblock");
	check(len > 0 && !decode((size_t)len, 0) && m.type == PROTO_VERDICT &&
	      m.error == EUCLEAN && !strcmp(m.text, "bad superblock") && m.nfds == 0,
	      "proto/verdict round-trip");
	len = proto_encode_serve(buf);
	check(len == PROTO_HDR_LEN && !decode((size_t)len, 0) && m.type == PROTO_SERVE,
	      "proto/serve round-trip");
	/* little-endian on the wire, whatever the host */
	check(buf[0] == 'E' && buf[1] == '4' && buf[2] == 'C' && buf[3] == 'P' && buf[4] == 1 &&
	      buf[6] == PROTO_SERVE, "proto/header bytes are little-endian");
}

static void encoder_refusals(void)
{
	char *big = malloc(PROTO_MAX_STR + 2);

	memset(big, 'a', PROTO_MAX_STR + 1);
	big[PROTO_MAX_STR + 1] = 0;
	check(proto_encode_request(buf, 0, big, "x") < 0, "proto/encode: options too long");
	check(proto_encode_verdict(buf, 0, 0, big) < 0, "proto/encode: text too long");
	big[PROTO_MAX_STR] = 0;
	check(proto_encode_request(buf, 0, big, big) > 0, "proto/encode: longest strings fit");
	check(proto_encode_request(buf, 0x80, "", "x") < 0, "proto/encode: unknown request flag");
	check(proto_encode_verdict(buf, -5, 0, "") < 0, "proto/encode: negative errno");
	free(big);
}

/* A mutation of a valid message and how many fds come with it. */
struct bad {
	const char *name;
	enum proto_type base;
	size_t off;		/* byte to overwrite, or SIZE_MAX for none */
	uint32_t val;		/* 32-bit value written at off */
	long dlen;		/* change of the packet length */
	int nfds;
};

static int base_message(enum proto_type t)
{
	switch (t) {
	case PROTO_REQUEST:
		return proto_encode_request(buf, 0, "ro", "/dev/sda1");
	case PROTO_VERDICT:
		return proto_encode_verdict(buf, 0, PROTO_VER_DEFPERM, "fine");
	default:
		return proto_encode_serve(buf);
	}
}

static void malformed(void)
{
	static const struct bad bad[] = {
		{ "short header", PROTO_SERVE, SIZE_MAX, 0, -1, 0 },
		{ "empty packet", PROTO_SERVE, SIZE_MAX, 0, -16, 0 },
		{ "bad magic", PROTO_SERVE, 0, 0x12345678, 0, 0 },
		{ "version 2", PROTO_SERVE, 4, 2 | PROTO_SERVE << 16, 0, 0 },
		{ "type 0", PROTO_SERVE, 4, 1, 0, 0 },
		{ "type 4", PROTO_SERVE, 4, 1 | 4 << 16, 0, 0 },
		{ "type 65535", PROTO_SERVE, 4, 1 | 0xffffu << 16, 0, 0 },
		{ "reserved field set", PROTO_SERVE, 12, 1, 0, 0 },
		{ "length larger than packet", PROTO_SERVE, 8, 1, 0, 0 },
		{ "length 4 GiB", PROTO_SERVE, 8, 0xffffffffu, 0, 0 },
		{ "packet longer than length", PROTO_SERVE, SIZE_MAX, 0, 4, 0 },
		{ "serve with payload", PROTO_SERVE, 8, 4, 4, 0 },
		{ "serve with an fd", PROTO_SERVE, SIZE_MAX, 0, 0, 1 },
		{ "request without fds", PROTO_REQUEST, SIZE_MAX, 0, 0, 0 },
		{ "request with one fd", PROTO_REQUEST, SIZE_MAX, 0, 0, 1 },
		{ "request unknown flag", PROTO_REQUEST, 16, 0x100, 0, 2 },
		{ "request options length past end", PROTO_REQUEST, 20, 0xffff | 9u << 16, 0, 2 },
		{ "request lengths short of packet", PROTO_REQUEST, 20, 1 | 9u << 16, 0, 2 },
		{ "request empty source", PROTO_REQUEST, 20, 11, 0, 2 },
		{ "request NUL in options", PROTO_REQUEST, 24, 0x41410000, 0, 2 },
		{ "request NUL in source", PROTO_REQUEST, 28, 0, 0, 2 },
		{ "request truncated fixed part", PROTO_REQUEST, 8, 4, -15, 2 },
		{ "verdict with an fd", PROTO_VERDICT, SIZE_MAX, 0, 0, 1 },
		{ "verdict negative errno", PROTO_VERDICT, 16, 0xffffffffu, 0, 0 },
		{ "verdict errno 4096", PROTO_VERDICT, 16, 4096, 0, 0 },
		{ "verdict unknown flag", PROTO_VERDICT, 20, 0x10, 0, 0 },
		{ "verdict padding set", PROTO_VERDICT, 24, 4 | 1u << 16, 0, 0 },
		{ "verdict text length past end", PROTO_VERDICT, 24, 4000, 0, 0 },
		{ "verdict NUL in text", PROTO_VERDICT, 28, 0x00656e69, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad *b = &bad[i];
		long len = base_message(b->base);

		if (b->off != SIZE_MAX)
			put32(buf + b->off, b->val);
		len += b->dlen;
		check(len >= 0 && decode((size_t)len, b->nfds) && errno == EPROTO,
		      "proto/reject %s", b->name);
		printf("# %s\n", err);
	}
	base_message(PROTO_VERDICT);
	check(proto_decode(buf, 28, NULL, 0, 1u << PROTO_REQUEST, &m, err, sizeof(err)),
	      "proto/reject a type the receiver does not expect");
	check(proto_decode(buf, PROTO_MAX_MSG + 1, NULL, 0, ALL_TYPES, &m, err, sizeof(err)),
	      "proto/reject a packet over PROTO_MAX_MSG");
}

/* Random byte changes of valid messages: must never crash, leak or overrun (ASan). */
static void mutations(void)
{
	unsigned accepted = 0, n = 200000;

	srand(1);
	for (unsigned i = 0; i < n; i++) {
		long len = base_message((enum proto_type)(1 + i % 3));
		int changes = 1 + rand() % 4;

		for (int c = 0; c < changes; c++)
			buf[rand() % len] = (uint8_t)rand();
		if (rand() % 8 == 0)
			len = rand() % (len + 8);
		accepted += !decode((size_t)len, rand() % 3);
	}
	check(1, "proto/%u random mutations decoded without a crash (%u accepted)", n, accepted);
}

static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Sends len bytes of buf with nfds copies of fd, through raw sendmsg. */
static void send_raw(int sock, size_t len, int nfds, int type)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int) * 16)];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[16];

	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		for (int i = 0; i < nfds; i++)
			fds[i] = 0;
		msg.msg_control = ctl.space;
		ctl.h.cmsg_level = SOL_SOCKET;
		ctl.h.cmsg_type = type;
		if (type == SCM_CREDENTIALS) {
			struct ucred c = { getpid(), getuid(), getgid() };
			ctl.h.cmsg_len = CMSG_LEN(sizeof(c));
			memcpy(CMSG_DATA(&ctl.h), &c, sizeof(c));
		} else {
			ctl.h.cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
			memcpy(CMSG_DATA(&ctl.h), fds, sizeof(int) * (size_t)nfds);
		}
		msg.msg_controllen = CMSG_SPACE(ctl.h.cmsg_len - CMSG_LEN(0));
	}
	if (sendmsg(sock, &msg, 0) < 0)
		printf("# sendmsg: %s\n", strerror(errno));
}

static void over_socket(void)
{
	static uint8_t rbuf[PROTO_MAX_MSG + 1];
	const unsigned req = 1u << PROTO_REQUEST;
	int sv[2], before, one = 1;
	struct timeval tv = { .tv_usec = 200000 };

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		check(0, "proto/socketpair: %s", strerror(errno));
		return;
	}
	setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	before = count_fds();
	int len = proto_encode_request(buf, 0, "", "/img");
	int fds[2] = { 0, 1 };
	check(!proto_send(sv[0], buf, (size_t)len, fds, 2) &&
	      !proto_recv(sv[1], rbuf, req, &m, err, sizeof(err)) && m.nfds == 2 &&
	      count_fds() == before + 2, "proto/socket: request with two fds accepted");
	close(m.fds[0]);
	close(m.fds[1]);
	for (int n = 0; n <= 12; n += 3) {
		send_raw(sv[0], (size_t)len, n, SCM_RIGHTS);
		check(proto_recv(sv[1], rbuf, req, &m, err, sizeof(err)) && errno == EPROTO &&
		      count_fds() == before, "proto/socket: request with %d fds rejected, "
		      "fds closed", n);
	}
	len = proto_encode_serve(buf);
	send_raw(sv[0], (size_t)len, 2, SCM_RIGHTS);
	check(proto_recv(sv[1], rbuf, 1u << PROTO_SERVE, &m, err, sizeof(err)) &&
	      count_fds() == before, "proto/socket: serve stuffed with fds rejected, fds closed");
	setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	send_raw(sv[0], (size_t)len, 1, SCM_CREDENTIALS);
	check(proto_recv(sv[1], rbuf, 1u << PROTO_SERVE, &m, err, sizeof(err)) &&
	      !strcmp(err, "message with control data other than fds"),
	      "proto/socket: credentials instead of fds rejected");
	one = 0;
	setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	memset(buf, 0, sizeof(buf));
	send_raw(sv[0], PROTO_MAX_MSG + 50, 0, 0);
	check(proto_recv(sv[1], rbuf, ALL_TYPES, &m, err, sizeof(err)) && errno == EPROTO,
	      "proto/socket: oversized packet rejected (%s)", err);
	check(proto_recv(sv[1], rbuf, ALL_TYPES, &m, err, sizeof(err)) && errno == EAGAIN,
	      "proto/socket: nothing sent: times out (%s)", err);
	send_raw(sv[0], 0, 2, SCM_RIGHTS);
	check(proto_recv(sv[1], rbuf, ALL_TYPES, &m, err, sizeof(err)) && errno == ECONNRESET &&
	      count_fds() == before, "proto/socket: empty packet with fds: closed, fds closed");
	close(sv[0]);
	check(proto_recv(sv[1], rbuf, ALL_TYPES, &m, err, sizeof(err)) && errno == ECONNRESET,
	      "proto/socket: peer gone: connection closed (%s)", err);
	close(sv[1]);
	check(count_fds() == before - 2, "proto/socket: no fd leaked");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	roundtrips();
	encoder_refusals();
	malformed();
	mutations();
	over_socket();
	return failures ? 1 : 0;
}
