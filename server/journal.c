/* server/journal.c: our own replay of an internal jbd2 journal (ext3/ext4):
 * scan for the last committed transaction, collect revoke records, then copy
 * every logged block not revoked by a later transaction to its home location.
 * Descriptor, revoke and commit blocks and data-block tags are checked with
 * the journal checksums (v2/v3) when the journal has them. Every block
 * number is range-checked and the walk is bounded by the journal length. */
#include "journal.h"
#include "jbd2.h"
#include "log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct revoke {
	blk64_t blk;
	__u32 seq;
};

struct journal {
	struct ec_jsb g;
	char *buf, *data;
	struct revoke *rv;
	size_t nrv, caprv;
	char *err;
	size_t errlen;
};

static int fail(struct journal *j, const char *what, errcode_t err)
{
	snprintf(j->err, j->errlen, "%s%s%s", what, err ? ": " : "", err ? error_message(err) : "");
	return -1;
}

/* Reads journal block lblk (relative to the journal start) into buf. */
static int read_jblock(struct journal *j, __u32 lblk, char *buf)
{
	blk64_t pblk = 0;
	errcode_t err = ext2fs_bmap2(j->g.fs, j->g.ino, NULL, NULL, 0, lblk, NULL, &pblk);

	if (!err && (pblk == 0 || pblk >= ext2fs_blocks_count(j->g.fs->super)))
		return fail(j, "journal block outside the filesystem", 0);
	if (!err)
		err = io_channel_read_blk64(j->g.fs->io, pblk, 1, buf);
	return err ? fail(j, "reading the journal", err) : 0;
}

static int write_jblock(struct journal *j, __u32 lblk, const char *buf)
{
	blk64_t pblk = 0;
	errcode_t err = ext2fs_bmap2(j->g.fs, j->g.ino, NULL, NULL, 0, lblk, NULL, &pblk);

	if (!err)
		err = io_channel_write_blk64(j->g.fs->io, pblk, 1, buf);
	return err ? fail(j, "writing the journal", err) : 0;
}

static __u32 next(const struct journal *j, __u32 b)
{
	return b + 1 >= j->g.maxlen ? j->g.first : b + 1;
}

/* Checksum over a whole block whose 4-byte checksum field at off is zeroed. */
static bool block_csum_ok(const struct journal *j, char *b, size_t off)
{
	__u32 want = jbd2_be32(b + off), got;

	if (!jbd2_csum(j->g.incompat))
		return true;
	jbd2_put_be32(b + off, 0);
	got = ext2fs_crc32c_le(j->g.csum_seed, (unsigned char *)b, j->g.bs);
	jbd2_put_be32(b + off, want);
	return got == want;
}

struct tag {
	blk64_t blk;
	__u32 flags, csum;
};

/* Decodes the tags of a descriptor block; returns their count or -1. */
static int decode_tags(struct journal *j, const char *b, struct tag *tags, int max)
{
	size_t tb = jbd2_tag_bytes(j->g.incompat), off = 12, end = j->g.bs - (jbd2_csum(j->g.incompat) ? 4 : 0);
	int n = 0;

	while (off + tb <= end && n < max) {
		const char *t = b + off;
		struct tag *g = &tags[n++];
		bool v3 = j->g.incompat & JF_INCOMPAT_CSUM_V3;
		g->blk = jbd2_be32(t);
		g->flags = v3 ? jbd2_be32(t + 4) : (__u32)(((unsigned char)t[6] << 8) | (unsigned char)t[7]);
		if (j->g.incompat & JF_INCOMPAT_64BIT)
			g->blk |= (blk64_t)jbd2_be32(t + 8) << 32;
		g->csum = v3 ? jbd2_be32(t + 12) : (__u32)(((unsigned char)t[4] << 8) | (unsigned char)t[5]);
		off += tb + (g->flags & TAG_SAME_UUID ? 0 : 16);
		if (g->flags & TAG_LAST)
			return n;
	}
	return off + tb <= end ? n : (n ? n : -1);
}

static int add_revoke(struct journal *j, blk64_t blk, __u32 seq)
{
	if (j->nrv == j->caprv) {
		size_t cap = j->caprv ? j->caprv * 2 : 256;
		struct revoke *nr = realloc(j->rv, cap * sizeof(*nr));
		if (!nr)
			return fail(j, "out of memory for revoke records", 0);
		j->rv = nr;
		j->caprv = cap;
	}
	j->rv[j->nrv].blk = blk;
	j->rv[j->nrv++].seq = seq;
	return 0;
}

static int cmp_revoke(const void *a, const void *b)
{
	const struct revoke *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk ? 1 : 0;
}

/* True when blk is revoked by transaction seq or a later one. */
static bool revoked(const struct journal *j, blk64_t blk, __u32 seq)
{
	size_t lo = 0, hi = j->nrv;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (j->rv[mid].blk < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < j->nrv && j->rv[lo].blk == blk; lo++)
		if ((__s32)(j->rv[lo].seq - seq) >= 0)
			return true;
	return false;
}

static int do_revoke_block(struct journal *j, const char *b, __u32 seq)
{
	size_t rec = j->g.incompat & JF_INCOMPAT_64BIT ? 8 : 4, off;
	__u32 count = jbd2_be32(b + 12);

	if (count > j->g.bs - (jbd2_csum(j->g.incompat) ? 4 : 0) || count < 16)
		return fail(j, "bad revoke block", 0);
	for (off = 16; off + rec <= count; off += rec) {
		blk64_t blk = rec == 8 ? ((blk64_t)jbd2_be32(b + off) << 32) | jbd2_be32(b + off + 4) : jbd2_be32(b + off);
		if (add_revoke(j, blk, seq))
			return -1;
	}
	return 0;
}

/* Copies one logged block home, unless revoked or its checksum is wrong. */
static int replay_block(struct journal *j, const struct tag *g, __u32 seq)
{
	errcode_t err;

	if (revoked(j, g->blk, seq))
		return 0;
	if (g->blk >= ext2fs_blocks_count(j->g.fs->super))
		return fail(j, "journal tag points outside the filesystem", 0);
	if (jbd2_csum(j->g.incompat)) {
		__u32 c = jbd2_block_csum(j->g.csum_seed, seq, j->data, j->g.bs);

		if (j->g.incompat & JF_INCOMPAT_CSUM_V3 ? c != g->csum : (c & 0xffff) != g->csum) {
			ec_log(EC_LOG_WARNING, "ext4cell-server: journal: bad checksum for block "
			       "%llu, not replayed\n", (unsigned long long)g->blk);
			return 0;
		}
	}
	if (g->flags & TAG_ESCAPE)
		jbd2_put_be32(j->data, JBD2_MAGIC);
	err = io_channel_write_blk64(j->g.fs->io, g->blk, 1, j->data);
	return err ? fail(j, "writing a replayed block", err) : 0;
}

enum pass { SCAN, REVOKES, REPLAY };

/* Walks the log from start; SCAN sets *end_seq to the first transaction
 * without a valid commit, the other passes stop there. */
static int walk(struct journal *j, enum pass pass, __u32 start, __u32 seq, __u32 *end_seq)
{
	int maxtags = (int)(j->g.bs / 8);
	struct tag *tags = calloc((size_t)maxtags, sizeof(*tags));
	__u32 b = start, steps = 0;
	int rc = 0;

	if (!tags)
		return fail(j, "out of memory", 0);
	while (rc == 0 && steps++ < j->g.maxlen && (pass == SCAN || seq != *end_seq)) {
		__u32 type;
		if ((rc = read_jblock(j, b, j->buf)))
			break;
		if (jbd2_be32(j->buf) != JBD2_MAGIC || jbd2_be32(j->buf + 8) != seq)
			break;
		type = jbd2_be32(j->buf + 4);
		if (type == JT_DESCRIPTOR) {
			int n, i;
			if (!block_csum_ok(j, j->buf, j->g.bs - 4))
				break;
			n = decode_tags(j, j->buf, tags, maxtags);
			if (n < 0)
				break;
			for (i = 0; i < n && rc == 0; i++) {
				b = next(j, b);
				steps++;
				if (pass == REPLAY && !(rc = read_jblock(j, b, j->data)))
					rc = replay_block(j, &tags[i], seq);
			}
		} else if (type == JT_COMMIT) {
			if (!block_csum_ok(j, j->buf, 16))
				break;
			seq++;
		} else if (type == JT_REVOKE) {
			if (!block_csum_ok(j, j->buf, j->g.bs - 4))
				break;
			if (pass == REVOKES)
				rc = do_revoke_block(j, j->buf, seq);
		} else {
			break;
		}
		b = next(j, b);
	}
	if (pass == SCAN)
		*end_seq = seq;
	free(tags);
	return rc;
}

static int load_sb(struct journal *j)
{
	struct ext2_inode in;
	errcode_t err;
	__u32 type;

	j->g.ino = j->g.fs->super->s_journal_inum;
	if (!j->g.ino)
		return fail(j, "external journals are not supported", 0);
	err = ext2fs_read_inode(j->g.fs, j->g.ino, &in);
	if (err)
		return fail(j, "reading the journal inode", err);
	if (read_jblock(j, 0, j->g.sb))
		return -1;
	type = jbd2_be32(j->g.sb + 4);
	if (jbd2_be32(j->g.sb) != JBD2_MAGIC || (type != JT_SB_V1 && type != JT_SB_V2))
		return fail(j, "bad journal superblock", 0);
	j->g.maxlen = jbd2_be32(j->g.sb + JS_MAXLEN);
	j->g.first = jbd2_be32(j->g.sb + JS_FIRST);
	j->g.incompat = type == JT_SB_V2 ? jbd2_be32(j->g.sb + JS_INCOMPAT) : 0;
	if (jbd2_be32(j->g.sb + JS_BLOCKSIZE) != j->g.bs)
		return fail(j, "journal block size differs from the filesystem's", 0);
	if (j->g.first == 0 || j->g.first >= j->g.maxlen ||
	    (uint64_t)j->g.maxlen * j->g.bs > EXT2_I_SIZE(&in) + (uint64_t)j->g.bs)
		return fail(j, "journal superblock geometry out of range", 0);
	if (j->g.incompat & ~JF_KNOWN)
		return fail(j, "unknown journal feature", 0);
	j->g.csum_seed = ext2fs_crc32c_le(~0u, (unsigned char *)j->g.sb + JS_UUID, 16);
	if (jbd2_csum(j->g.incompat)) {
		__u32 want = jbd2_be32(j->g.sb + JS_CHECKSUM), got;
		jbd2_put_be32(j->g.sb + JS_CHECKSUM, 0);
		got = ext2fs_crc32c_le(~0u, (unsigned char *)j->g.sb, JS_SIZE);
		jbd2_put_be32(j->g.sb + JS_CHECKSUM, want);
		if (got != want)
			return fail(j, "journal superblock checksum mismatch", 0);
	}
	return 0;
}

int ec_journal_load(ext2_filsys fs, struct ec_jsb *g, char *err, size_t errlen)
{
	struct journal j = { .g = { .fs = fs, .bs = fs->blocksize }, .err = err, .errlen = errlen };

	j.g.sb = malloc(j.g.bs);
	if (!j.g.sb)
		return fail(&j, "out of memory", 0);
	if (load_sb(&j)) {
		free(j.g.sb);
		return -1;
	}
	*g = j.g;
	return 0;
}

/* Marks the journal empty after a replay (or finds it already empty). */
static int reset_sb(struct journal *j, __u32 end_seq)
{
	jbd2_put_be32(j->g.sb + JS_START, 0);
	jbd2_put_be32(j->g.sb + JS_SEQUENCE, end_seq);
	jbd2_sb_csum_set(j->g.sb, j->g.incompat);
	return write_jblock(j, 0, j->g.sb);
}

int ec_journal_replay(ext2_filsys fs, char *err, size_t errlen)
{
	struct journal j = { .g = { .fs = fs, .bs = fs->blocksize }, .err = err, .errlen = errlen };
	__u32 start, seq, end_seq = 0;
	int rc = -1;

	j.g.sb = malloc(j.g.bs);
	j.buf = malloc(j.g.bs);
	j.data = malloc(j.g.bs);
	if (!j.g.sb || !j.buf || !j.data) {
		fail(&j, "out of memory", 0);
		goto out;
	}
	if (load_sb(&j))
		goto out;
	start = jbd2_be32(j.g.sb + JS_START);
	seq = jbd2_be32(j.g.sb + JS_SEQUENCE);
	if (start == 0) {
		rc = 0; /* nothing logged: only the flag was left set */
		goto out;
	}
	if (start < j.g.first || start >= j.g.maxlen) {
		fail(&j, "journal start out of range", 0);
		goto out;
	}
	if (walk(&j, SCAN, start, seq, &end_seq) || walk(&j, REVOKES, start, seq, &end_seq))
		goto out;
	if (j.nrv)
		qsort(j.rv, j.nrv, sizeof(*j.rv), cmp_revoke);
	if (walk(&j, REPLAY, start, seq, &end_seq) || reset_sb(&j, end_seq))
		goto out;
	ec_log(EC_LOG_NOTICE, "ext4cell-server: journal: replayed %u transaction(s)\n",
	       end_seq - seq);
	rc = 0;
out:
	free(j.g.sb);
	free(j.buf);
	free(j.data);
	free(j.rv);
	return rc;
}
