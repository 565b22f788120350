/* server/jbd2.h: the on-disk format of an internal jbd2 journal, shared by
 * our replay (journal.c) and our writer (jlog.c): block types, feature and
 * tag flags, journal superblock offsets, big-endian access, tag sizes. */
#ifndef EC_JBD2_H
#define EC_JBD2_H

#include <arpa/inet.h>
#include <ext2fs/ext2fs.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define JBD2_MAGIC 0xc03b3998u
enum { JT_DESCRIPTOR = 1, JT_COMMIT = 2, JT_SB_V1 = 3, JT_SB_V2 = 4, JT_REVOKE = 5 };
#define JF_INCOMPAT_REVOKE 0x1u
#define JF_INCOMPAT_64BIT 0x2u
#define JF_INCOMPAT_ASYNC_COMMIT 0x4u
#define JF_INCOMPAT_CSUM_V2 0x8u
#define JF_INCOMPAT_CSUM_V3 0x10u
#define JF_INCOMPAT_FAST_COMMIT 0x20u
#define JF_KNOWN (JF_INCOMPAT_REVOKE | JF_INCOMPAT_64BIT | JF_INCOMPAT_ASYNC_COMMIT | \
		  JF_INCOMPAT_CSUM_V2 | JF_INCOMPAT_CSUM_V3 | JF_INCOMPAT_FAST_COMMIT)
#define TAG_ESCAPE 1u
#define TAG_SAME_UUID 2u
#define TAG_LAST 8u

/* Byte offsets in the journal superblock (big-endian fields). */
enum { JS_BLOCKSIZE = 12, JS_MAXLEN = 16, JS_FIRST = 20, JS_SEQUENCE = 24, JS_START = 28,
       JS_INCOMPAT = 40, JS_UUID = 48, JS_CHECKSUM = 0xfc, JS_SIZE = 1024 };

/* Commit block: checksum type and size (v1 only), checksum, time. */
enum { JC_CSUM_TYPE = 12, JC_CSUM_SIZE = 13, JC_CSUM = 16, JC_SEC = 48, JC_NSEC = 56 };

static inline __u32 jbd2_be32(const char *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static inline void jbd2_put_be32(char *p, __u32 v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static inline bool jbd2_csum(__u32 incompat)
{
	return incompat & (JF_INCOMPAT_CSUM_V2 | JF_INCOMPAT_CSUM_V3);
}

/* Bytes of one block tag in a descriptor block, UUID not counted. */
static inline size_t jbd2_tag_bytes(__u32 incompat)
{
	size_t sz;

	if (incompat & JF_INCOMPAT_CSUM_V3)
		return 16;
	sz = 12 + (incompat & JF_INCOMPAT_CSUM_V2 ? 2 : 0);
	return incompat & JF_INCOMPAT_64BIT ? sz : sz - 4;
}

/* Checksum of a logged block of transaction seq (v2 keeps its low 16 bits). */
static inline __u32 jbd2_block_csum(__u32 seed, __u32 seq, const char *data, size_t bs)
{
	char s[4];

	jbd2_put_be32(s, seq);
	return ext2fs_crc32c_le(ext2fs_crc32c_le(seed, (unsigned char *)s, 4),
				(const unsigned char *)data, bs);
}

/* Sets the checksum of the journal superblock sb (when the journal has them). */
static inline void jbd2_sb_csum_set(char *sb, __u32 incompat)
{
	if (!jbd2_csum(incompat))
		return;
	jbd2_put_be32(sb + JS_CHECKSUM, 0);
	jbd2_put_be32(sb + JS_CHECKSUM, ext2fs_crc32c_le(~0u, (unsigned char *)sb, JS_SIZE));
}

#endif
