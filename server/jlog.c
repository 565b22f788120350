/* server/jlog.c: writes transactions into an internal jbd2 journal (see
 * jlog.h for the protocol). Block tags are written in the journal's own
 * format (32- or 64-bit block numbers, checksum v2 or v3 or none); a logged
 * copy that begins with the jbd2 magic is escaped, as jbd2 does. */
#include "jlog.h"
#include "jbd2.h"
#include "journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JS_COMPAT 36
#define JF_COMPAT_CHECKSUM 0x1u
#define JS_NUM_FC 0x54
#define JBD2_DEFAULT_FC_BLOCKS 256

struct ec_jlog {
	struct ec_jsb g;
	blk64_t *pblk;		/* device block of each journal block */
	__u32 seq;		/* the next transaction's sequence */
	__u32 half;		/* journal blocks in each half of the log area */
	unsigned next_half;	/* 0 or 1: where the next transaction goes */
	size_t tb, per_desc;	/* tag bytes; tags per descriptor block */
	char *buf, *copy;
	unsigned long long commits, blocks;
};

void ec_jlog_free(struct ec_jlog *j)
{
	if (!j)
		return;
	free(j->g.sb);
	free(j->pblk);
	free(j->buf);
	free(j->copy);
	free(j);
}

static int refuse(struct ec_jlog *j, char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	ec_jlog_free(j);
	return -1;
}

int ec_jlog_open(ext2_filsys fs, struct ec_jlog **out, char *err, size_t errlen)
{
	struct ec_jlog *j = calloc(1, sizeof(*j));
	blk64_t count = ext2fs_blocks_count(fs->super);
	size_t space;
	__u32 end;

	if (!j)
		return refuse(j, err, errlen, "out of memory");
	if (ec_journal_load(fs, &j->g, err, errlen)) {
		free(j);
		return -1;
	}
	if (jbd2_be32(j->g.sb + JS_START))
		return refuse(j, err, errlen, "the journal is not empty");
	/* the length comes from the image: every block of the journal is
	 * mapped below, so it cannot be longer than the filesystem */
	if (j->g.maxlen > count)
		return refuse(j, err, errlen, "the journal is longer than the filesystem");
	end = j->g.maxlen;
	if (jbd2_be32(j->g.sb + 4) == JT_SB_V2 &&
	    (jbd2_be32(j->g.sb + JS_COMPAT) & JF_COMPAT_CHECKSUM))
		return refuse(j, err, errlen, "the journal uses version 1 checksums");
	/* a fast-commit filesystem's journal keeps its last blocks for fast
	 * commits (kernel ext4 sets the journal's flag when it mounts): we
	 * never write there (full commits only), and its replay never looks
	 * for full commits there */
	if ((j->g.incompat & JF_INCOMPAT_FAST_COMMIT) || ext2fs_has_feature_fast_commit(fs->super)) {
		__u32 nfc = jbd2_be32(j->g.sb + JS_NUM_FC);

		end = j->g.maxlen - (nfc ? nfc : JBD2_DEFAULT_FC_BLOCKS);
		if (end > j->g.maxlen || end <= j->g.first)
			return refuse(j, err, errlen, "the journal's fast-commit area is too large");
	}
	j->half = (end - j->g.first) / 2;
	j->tb = jbd2_tag_bytes(j->g.incompat);
	space = j->g.bs - 12 - (jbd2_csum(j->g.incompat) ? 4 : 0);
	if (j->half < 16 || space < j->tb + 16)
		return refuse(j, err, errlen, "the journal is too small");
	j->per_desc = 1 + (space - j->tb - 16) / j->tb;
	j->pblk = malloc(j->g.maxlen * sizeof(*j->pblk));
	j->buf = malloc(j->g.bs);
	j->copy = malloc(j->g.bs);
	if (!j->pblk || !j->buf || !j->copy)
		return refuse(j, err, errlen, "out of memory");
	for (__u32 b = 0; b < j->g.maxlen; b++) {
		errcode_t e = ext2fs_bmap2(fs, j->g.ino, NULL, NULL, 0, b, NULL, &j->pblk[b]);

		if (e || j->pblk[b] == 0 || j->pblk[b] >= count)
			return refuse(j, err, errlen, "the journal inode maps a block outside "
				      "the filesystem (run e2fsck)");
	}
	j->seq = jbd2_be32(j->g.sb + JS_SEQUENCE) + 1;
	*out = j;
	return 0;
}

size_t ec_jlog_capacity(const struct ec_jlog *j)
{
	/* copies + descriptors + the commit block fit in one half */
	return (size_t)(j->half - 2) * j->per_desc / (j->per_desc + 1);
}

/* Puts one tag for blk (copy's checksum), with the UUID after it when first. */
static size_t put_tag(const struct ec_jlog *j, char *p, blk64_t blk, const char *copy,
		      __u32 flags, bool first)
{
	__u32 c = jbd2_csum(j->g.incompat) ? jbd2_block_csum(j->g.csum_seed, j->seq, copy, j->g.bs) : 0;

	flags |= first ? 0 : TAG_SAME_UUID;
	memset(p, 0, j->tb);
	jbd2_put_be32(p, (__u32)blk);
	if (j->g.incompat & JF_INCOMPAT_CSUM_V3) {
		jbd2_put_be32(p + 4, flags);
		jbd2_put_be32(p + 12, c);
	} else {
		p[4] = (char)(c >> 8 & 0xff);
		p[5] = (char)(c & 0xff);
		p[6] = (char)(flags >> 8 & 0xff);
		p[7] = (char)(flags & 0xff);
	}
	if (j->g.incompat & JF_INCOMPAT_64BIT)
		jbd2_put_be32(p + 8, (__u32)(blk >> 32));
	if (!first)
		return j->tb;
	memcpy(p + j->tb, j->g.sb + JS_UUID, 16);
	return j->tb + 16;
}

static void header(const struct ec_jlog *j, char *b, __u32 type)
{
	memset(b, 0, j->g.bs);
	jbd2_put_be32(b, JBD2_MAGIC);
	jbd2_put_be32(b + 4, type);
	jbd2_put_be32(b + 8, j->seq);
}

/* The checksum at off of a descriptor or commit block. */
static void block_csum_set(const struct ec_jlog *j, char *b, size_t off)
{
	if (!jbd2_csum(j->g.incompat))
		return;
	jbd2_put_be32(b + off, 0);
	jbd2_put_be32(b + off, ext2fs_crc32c_le(j->g.csum_seed, (unsigned char *)b, j->g.bs));
}

/* Writes one descriptor block at *pos and the copies of blocks [i, i + k). */
static errcode_t log_chunk(struct ec_jlog *j, const struct ec_jlog_dev *dev, __u32 *pos,
			   const blk64_t *blks, char *const *data, size_t i, size_t k)
{
	size_t off = 12;
	__u32 dpos = (*pos)++;
	errcode_t e = 0;

	header(j, j->buf, JT_DESCRIPTOR);
	for (size_t n = 0; n < k && !e; n++) {
		const char *src = data[i + n];
		__u32 flags = n + 1 == k ? TAG_LAST : 0;

		if ((blks[i + n] >> 32) && !(j->g.incompat & JF_INCOMPAT_64BIT))
			return EXT2_ET_BLOCK_ALLOC_FAIL;
		if (jbd2_be32(src) == JBD2_MAGIC) {
			memcpy(j->copy, src, j->g.bs);
			memset(j->copy, 0, 4);
			src = j->copy;
			flags |= TAG_ESCAPE;
		}
		off += put_tag(j, j->buf + off, blks[i + n], src, flags, n == 0);
		e = dev->write(dev->arg, j->pblk[(*pos)++], src);
	}
	block_csum_set(j, j->buf, j->g.bs - 4);
	return e ? e : dev->write(dev->arg, j->pblk[dpos], j->buf);
}

static errcode_t write_sb(struct ec_jlog *j, const struct ec_jlog_dev *dev, __u32 start)
{
	jbd2_put_be32(j->g.sb + JS_START, start);
	jbd2_put_be32(j->g.sb + JS_SEQUENCE, j->seq);
	jbd2_sb_csum_set(j->g.sb, j->g.incompat);
	return dev->write(dev->arg, j->pblk[0], j->g.sb);
}

errcode_t ec_jlog_commit(struct ec_jlog *j, struct ec_txn *t, const struct ec_jlog_dev *dev)
{
	__u32 start = j->g.first + j->next_half * j->half, pos = start;
	struct timespec now;
	blk64_t *blks;
	char **data;
	size_t n, i;
	errcode_t e = 0;

	ec_txn_sorted(t, &n, &blks, &data);
	if (n > ec_jlog_capacity(j))
		return EXT2_ET_JOURNAL_TOO_SMALL;
	for (i = 0; i < n && !e; i += j->per_desc)
		e = log_chunk(j, dev, &pos, blks, data, i, n - i < j->per_desc ? n - i : j->per_desc);
	/* the copies, the new data blocks and the last transaction's home
	 * writes are durable before anything points at this transaction */
	if (!e)
		e = dev->flush(dev->arg);
	if (!e)
		e = write_sb(j, dev, start);
	if (!e) {
		header(j, j->buf, JT_COMMIT);
		clock_gettime(CLOCK_REALTIME, &now);
		jbd2_put_be32(j->buf + JC_SEC, (__u32)((uint64_t)now.tv_sec >> 32));
		jbd2_put_be32(j->buf + JC_SEC + 4, (__u32)now.tv_sec);
		jbd2_put_be32(j->buf + JC_NSEC, (__u32)now.tv_nsec);
		block_csum_set(j, j->buf, JC_CSUM);
		e = dev->write(dev->arg, j->pblk[pos], j->buf);
	}
	if (!e)
		e = dev->flush(dev->arg);
	if (e)
		return e;
	j->seq++;
	j->next_half ^= 1;
	j->commits++;
	j->blocks += n;
	return 0;
}

errcode_t ec_jlog_close(struct ec_jlog *j, const struct ec_jlog_dev *dev)
{
	errcode_t e = dev->flush(dev->arg);

	if (!e)
		e = write_sb(j, dev, 0);
	return e ? e : dev->flush(dev->arg);
}

void ec_jlog_stats(const struct ec_jlog *j, unsigned long long *commits,
		   unsigned long long *blocks)
{
	*commits = j->commits;
	*blocks = j->blocks;
}
