/* fuzz/proto.c: libFuzzer target: the helper <-> server protocol (proto/).
 * The input's first byte picks the receiver (bits 0-1: the server waiting
 * for REQUEST or for SERVE, the helper waiting for VERDICT, or anything)
 * and how many fds travel with the packet (bits 2-3, at most 2); the rest
 * is the packet. It goes through proto_send and a SOCK_SEQPACKET pair to
 * proto_recv, which must agree with proto_decode on the same bytes. An
 * accepted message must encode back to exactly the packet, and no fd may
 * be left open. An accepted REQUEST goes on as in the server (main.c): its
 * options through the -o parser, its source through ec_printable. */
#include "../proto/proto.h"
#include "../server/options.h"
#include "../server/printable.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const unsigned expects[] = {
	1u << PROTO_REQUEST,	/* server, after accept() */
	1u << PROTO_SERVE,	/* server, after its verdict */
	1u << PROTO_VERDICT,	/* helper */
	1u << PROTO_REQUEST | 1u << PROTO_VERDICT | 1u << PROTO_SERVE,
};

/* The lowest free fd number: the same before and after an input, or an fd leaked. */
static int lowest_free_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

/* The encoding of an accepted message, into buf; its length. */
static int encode(const struct proto_msg *m, uint8_t *buf)
{
	switch (m->type) {
	case PROTO_REQUEST:
		return proto_encode_request(buf, m->flags, m->options, m->source);
	case PROTO_VERDICT:
		return proto_encode_verdict(buf, m->error, m->flags, m->text);
	case PROTO_SERVE:
		return proto_encode_serve(buf);
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[PROTO_MAX_MSG + 1], again[PROTO_MAX_MSG];
	static struct proto_msg m, direct;
	int sv[2], fds[2], nfds, free_fd = lowest_free_fd(), rc, i, len;
	char err[256];
	unsigned expect;

	if (size < 1 || size > PROTO_MAX_MSG + 1 + 1)
		return 0;
	expect = expects[data[0] & 3];
	nfds = (data[0] >> 2) & 3;
	nfds = nfds > PROTO_MAX_FDS ? PROTO_MAX_FDS : nfds;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		abort();
	for (i = 0; i < nfds; i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (size > 1 && proto_send(sv[0], data + 1, size - 1, fds, nfds))
		abort();
	if (size == 1)
		shutdown(sv[0], SHUT_WR);	/* no packet: the helper went away */
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	rc = proto_recv(sv[1], buf, expect, &m, err, sizeof(err));
	close(sv[0]);
	close(sv[1]);
	if (size > 1 && (rc == 0) != (proto_decode(data + 1, size - 1, fds, nfds, expect, &direct,
						      err, sizeof(err)) == 0))
		abort();	/* the socket path and the decoder disagree */
	if (!rc && m.type == PROTO_REQUEST) {
		struct ec_options o = { .ro = false };

		ec_options_parse(&o, m.options, err, sizeof(err));
		free(ec_printable(m.source));
	}
	if (!rc) {
		for (i = 0; i < m.nfds; i++)
			close(m.fds[i]);
		len = encode(&m, again);
		if (len != (int)size - 1 || memcmp(again, data + 1, size - 1))
			abort();	/* accepted bytes that are not the message's encoding */
	}
	if (lowest_free_fd() != free_fd)
		abort();	/* an fd that came with the packet is still open */
	return 0;
}
