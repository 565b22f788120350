/* proto/proto.c: encoding and validating decoding of the helper <-> server
 * messages (layouts in proto.h; all integers little-endian). */
#include "proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Payload layouts after the header:
 *   REQUEST  u32 flags, u16 options_len, u16 source_len, options, source
 *   VERDICT  s32 error, u32 flags, u16 text_len, u16 zero, text
 *   SERVE    nothing */
#define REQ_FIXED	8
#define VER_FIXED	12

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static int put_header(uint8_t *buf, enum proto_type type, size_t payload)
{
	put32(buf, PROTO_MAGIC);
	put16(buf + 4, PROTO_VERSION);
	put16(buf + 6, (uint16_t)type);
	put32(buf + 8, (uint32_t)payload);
	put32(buf + 12, 0);
	return (int)(PROTO_HDR_LEN + payload);
}

/* Length of a string the protocol may carry, or -1. */
static int str_len(const char *s)
{
	size_t n = strnlen(s, PROTO_MAX_STR + 1);

	return n > PROTO_MAX_STR ? -1 : (int)n;
}

int proto_encode_request(uint8_t *buf, uint32_t flags, const char *options, const char *source)
{
	int ol = str_len(options), sl = str_len(source);
	uint8_t *p = buf + PROTO_HDR_LEN;

	if (ol < 0 || sl < 0 || (flags & ~PROTO_REQ_ALL))
		return -1;
	put32(p, flags);
	put16(p + 4, (uint16_t)ol);
	put16(p + 6, (uint16_t)sl);
	memcpy(p + REQ_FIXED, options, (size_t)ol);
	memcpy(p + REQ_FIXED + ol, source, (size_t)sl);
	return put_header(buf, PROTO_REQUEST, REQ_FIXED + (size_t)ol + (size_t)sl);
}

int proto_encode_verdict(uint8_t *buf, int32_t error, uint32_t flags, const char *text)
{
	int tl = str_len(text);
	uint8_t *p = buf + PROTO_HDR_LEN;

	if (tl < 0 || error < 0 || error > 4095 || (flags & ~PROTO_VER_ALL))
		return -1;
	put32(p, (uint32_t)error);
	put32(p + 4, flags);
	put16(p + 8, (uint16_t)tl);
	put16(p + 10, 0);
	memcpy(p + VER_FIXED, text, (size_t)tl);
	return put_header(buf, PROTO_VERDICT, VER_FIXED + (size_t)tl);
}

int proto_encode_serve(uint8_t *buf)
{
	return put_header(buf, PROTO_SERVE, 0);
}

static int reject(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	errno = EPROTO;
	return -1;
}

/* Copies the n-byte string at p into out (PROTO_MAX_STR + 1 bytes); -1 if it has a NUL. */
static int take_str(char *out, const uint8_t *p, size_t n)
{
	if (memchr(p, 0, n))
		return -1;
	memcpy(out, p, n);
	out[n] = 0;
	return 0;
}

static int decode_request(const uint8_t *p, size_t len, struct proto_msg *m, char *err, size_t errlen)
{
	size_t ol, sl;

	if (len < REQ_FIXED)
		return reject(err, errlen, "request too short (%zu bytes)", len);
	m->flags = get32(p);
	ol = get16(p + 4);
	sl = get16(p + 6);
	if (m->flags & ~PROTO_REQ_ALL)
		return reject(err, errlen, "request has unknown flags 0x%x", m->flags);
	if (ol > PROTO_MAX_STR || sl > PROTO_MAX_STR || REQ_FIXED + ol + sl != len)
		return reject(err, errlen, "request string lengths %zu + %zu do not match its "
			      "length %zu", ol, sl, len);
	if (sl == 0)
		return reject(err, errlen, "request has no source name");
	if (take_str(m->options, p + REQ_FIXED, ol) || take_str(m->source, p + REQ_FIXED + ol, sl))
		return reject(err, errlen, "request string contains a NUL byte");
	return 0;
}

static int decode_verdict(const uint8_t *p, size_t len, struct proto_msg *m, char *err, size_t errlen)
{
	size_t tl;

	if (len < VER_FIXED)
		return reject(err, errlen, "verdict too short (%zu bytes)", len);
	m->error = (int32_t)get32(p);
	m->flags = get32(p + 4);
	tl = get16(p + 8);
	if (m->error < 0 || m->error > 4095)
		return reject(err, errlen, "verdict has a bad error number %d", (int)m->error);
	if (m->flags & ~PROTO_VER_ALL)
		return reject(err, errlen, "verdict has unknown flags 0x%x", m->flags);
	if (get16(p + 10))
		return reject(err, errlen, "verdict padding is not zero");
	if (tl > PROTO_MAX_STR || VER_FIXED + tl != len)
		return reject(err, errlen, "verdict text length %zu does not match its length %zu",
			      tl, len);
	if (take_str(m->text, p + VER_FIXED, tl))
		return reject(err, errlen, "verdict text contains a NUL byte");
	return 0;
}

int proto_decode(const uint8_t *buf, size_t len, const int *fds, int nfds, unsigned expect,
		 struct proto_msg *m, char *err, size_t errlen)
{
	static const int want_fds[] = { [PROTO_REQUEST] = 2, [PROTO_VERDICT] = 0,
					[PROTO_SERVE] = 0 };
	uint32_t type, plen;
	int i;

	memset(m, 0, sizeof(*m));
	m->fds[0] = m->fds[1] = -1;
	if (len < PROTO_HDR_LEN)
		return reject(err, errlen, "message too short (%zu bytes)", len);
	if (len > PROTO_MAX_MSG)
		return reject(err, errlen, "message too long (%zu bytes)", len);
	if (get32(buf) != PROTO_MAGIC)
		return reject(err, errlen, "bad magic 0x%08x", get32(buf));
	if (get16(buf + 4) != PROTO_VERSION)
		return reject(err, errlen, "protocol version %u, expected %u", get16(buf + 4),
			      PROTO_VERSION);
	type = get16(buf + 6);
	plen = get32(buf + 8);
	if (type < PROTO_REQUEST || type > PROTO_SERVE || !(expect & (1u << type)))
		return reject(err, errlen, "unexpected message type %u", type);
	if (get32(buf + 12))
		return reject(err, errlen, "reserved header field is not zero");
	if (plen != len - PROTO_HDR_LEN)
		return reject(err, errlen, "header says %u payload bytes, packet has %zu", plen,
			      len - PROTO_HDR_LEN);
	if (nfds != want_fds[type])
		return reject(err, errlen, "message type %u came with %d fds, expected %d", type,
			      nfds, want_fds[type]);
	m->type = (enum proto_type)type;
	switch (m->type) {
	case PROTO_REQUEST:
		if (decode_request(buf + PROTO_HDR_LEN, plen, m, err, errlen))
			return -1;
		break;
	case PROTO_VERDICT:
		if (decode_verdict(buf + PROTO_HDR_LEN, plen, m, err, errlen))
			return -1;
		break;
	case PROTO_SERVE:
		if (plen)
			return reject(err, errlen, "serve message has a payload");
		break;
	}
	for (i = 0; i < nfds; i++)
		m->fds[i] = fds[i];
	m->nfds = nfds;
	return 0;
}
