/*
 * proto/proto.h: the helper <-> server protocol of ext4cell (DESIGN.md section 3),
 * spoken over one SOCK_SEQPACKET unix connection per mount:
 *
 *   helper -> server  REQUEST  fds: /dev/fuse, device   payload: flags, options, source
 *   server -> helper  VERDICT  no fds                   payload: errno, flags, text
 *   helper -> server  SERVE    no fds, empty            (the helper has mounted)
 *
 * Every message is one packet: a 16-byte header (little-endian) then the payload.
 * A message is accepted only if the magic, version, type, length, reserved field,
 * string lengths, flag bits and the number of fds all match its type; any fds
 * that came with a rejected message are closed. Strings carry no NUL bytes.
 * A helper that closes the connection instead of sending SERVE aborts the mount.
 */
#ifndef EC_PROTO_H
#define EC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_MAGIC	0x50433445u	/* "E4CP" little-endian */
#define PROTO_VERSION	1
#define PROTO_HDR_LEN	16
#define PROTO_MAX_STR	4095		/* longest option list, source name or text */
#define PROTO_MAX_MSG	(PROTO_HDR_LEN + 8 + 2 * PROTO_MAX_STR)
#define PROTO_MAX_FDS	2

enum proto_type {
	PROTO_REQUEST = 1,
	PROTO_VERDICT = 2,
	PROTO_SERVE = 3,
};

/* REQUEST flags */
#define PROTO_REQ_RO		0x1u	/* the device fd is read-only */
#define PROTO_REQ_IOMAP		0x2u	/* the fuse fd may use iomap (ADD_IOMAP worked) */
#define PROTO_REQ_ALL		(PROTO_REQ_RO | PROTO_REQ_IOMAP)

/* VERDICT flags (meaningful when error == 0) */
#define PROTO_VER_RO		0x1u	/* mount read-only (forced by the server) */
#define PROTO_VER_DEFPERM	0x2u	/* mount with default_permissions */
#define PROTO_VER_ALLOW_OTHER	0x4u	/* mount with allow_other (requested) */
#define PROTO_VER_IOMAP		0x8u	/* the server uses iomap */
#define PROTO_VER_ALL		0xfu

/* A decoded message; strings are copied out and NUL-terminated. */
struct proto_msg {
	enum proto_type type;
	uint32_t flags;
	int32_t error;				/* VERDICT: 0, or a positive errno */
	char options[PROTO_MAX_STR + 1];	/* REQUEST: comma-separated server options */
	char source[PROTO_MAX_STR + 1];		/* REQUEST: device or image name */
	char text[PROTO_MAX_STR + 1];		/* VERDICT: reason or notice, may be empty */
	int fds[PROTO_MAX_FDS];		/* REQUEST: fds[0] /dev/fuse, fds[1] device */
	int nfds;
};

/* Encoders: write the message into buf (PROTO_MAX_MSG bytes); return its
 * length, or -1 if a string is too long or a flag or error is out of range. */
int proto_encode_request(uint8_t *buf, uint32_t flags, const char *options, const char *source);
int proto_encode_verdict(uint8_t *buf, int32_t error, uint32_t flags, const char *text);
int proto_encode_serve(uint8_t *buf);

/* Decodes the len-byte packet in buf that arrived with the nfds fds in fds. Returns 0 with
 * *m filled (m->fds owns the fds), or -1 with a reason in err; the caller closes
 * the fds of a rejected message. Only types in the `expect` bit mask
 * (1 << type) are accepted. */
int proto_decode(const uint8_t *buf, size_t len, const int *fds, int nfds, unsigned expect,
		 struct proto_msg *m, char *err, size_t errlen);

/* Sends the len-byte message in buf with nfds fds (MSG_NOSIGNAL). 0 or -errno. */
int proto_send(int sock, const uint8_t *buf, size_t len, const int *fds, int nfds);

/* Receives and decodes one message of a type in `expect` into *m, using buf
 * (PROTO_MAX_MSG + 1 bytes, so that an oversized packet shows). Fds beyond PROTO_MAX_FDS, control data other than
 * SCM_RIGHTS, truncated packets and rejected messages are closed/refused.
 * Returns 0; -1 with a reason in err (0 bytes read: "connection closed"), with
 * errno set (EAGAIN: timed out; EPROTO: bad message). */
int proto_recv(int sock, uint8_t *buf, unsigned expect, struct proto_msg *m,
	       char *err, size_t errlen);

#endif
