/* tests/images/craft_journal.c: craft's "journal" family. Either one field
 * of the journal superblock (big-endian, as jbd2 writes it), or a log to
 * replay behind a set needs_recovery flag: a descriptor block whose tags
 * aim at blocks the seed chooses (metadata, the journal itself, the edges
 * of the device, beyond it), their data blocks, perhaps a revoke block with
 * a seeded count, and a commit block of the right, a wrong or no sequence. */
#include "craft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JBD2_MAGIC	0xc03b3998U
#define T_DESCRIPTOR	1
#define T_COMMIT	2
#define T_REVOKE	5
#define F_SAME_UUID	2
#define F_LAST_TAG	8
#define I_64BIT		0x2
#define I_CSUM_V3	0x10

static const struct field jsb_fields[] = {
	{ "h_magic", 0, 4 }, { "h_blocktype", 4, 4 }, { "s_blocksize", 12, 4 },
	{ "s_maxlen", 16, 4 }, { "s_first", 20, 4 }, { "s_sequence", 24, 4 }, { "s_start", 28, 4 },
	{ "s_errno", 32, 4 }, { "s_feature_compat", 36, 4 }, { "s_feature_incompat", 40, 4 },
	{ "s_nr_users", 64, 4 }, { "s_max_transaction", 72, 4 }, { "s_num_fc_blks", 84, 4 },
};

static void header(uint8_t *b, uint32_t type, uint32_t seq)
{
	memset(b, 0, fs->blocksize);
	put_field(b, 4, true, JBD2_MAGIC);
	put_field(b + 4, 4, true, type);
	put_field(b + 8, 4, true, seq);
}

/* where a replayed block lands */
static blk64_t target(blk64_t jsb)
{
	switch (below(4)) {
	case 0: return jsb;
	case 1: return ext2fs_blocks_count(fs->super) - 1 - below(64);
	default: return pick_block(ext2fs_inode_table_loc(fs, 0));
	}
}

/* The log from logical block first of the journal inode ino (in). */
static errcode_t write_log(ext2_ino_t ino, struct ext2_inode *in, uint32_t first, uint32_t seq,
			   uint32_t incompat, blk64_t jsb)
{
	unsigned tag = incompat & I_CSUM_V3 ? 16 : 8 + (incompat & I_64BIT ? 4 : 0);
	unsigned ntags = 1 + below(3), n = 0, i;
	uint8_t *b[8];
	errcode_t err = 0;

	for (i = 0; i < 8; i++)
		b[i] = calloc(1, fs->blocksize);
	header(b[n], T_DESCRIPTOR, seq);
	for (i = 0; i < ntags; i++) {
		uint8_t *t = b[0] + 12 + i * tag;
		uint32_t flags = F_SAME_UUID | (i + 1 == ntags ? F_LAST_TAG : 0);
		blk64_t to = target(jsb);

		put_field(t, 4, true, (uint32_t)to);
		if (tag == 16) {
			put_field(t + 4, 4, true, flags);
			put_field(t + 8, 4, true, (uint32_t)(to >> 32));
		} else {
			put_field(t + 6, 2, true, flags);
			if (tag == 12)
				put_field(t + 8, 4, true, (uint32_t)(to >> 32));
		}
		for (unsigned k = 0; k < fs->blocksize; k++)
			b[1 + i][k] = (uint8_t)next();
	}
	n = 1 + ntags;
	if (below(3) == 0) {	/* a revoke block, its count seeded */
		header(b[n], T_REVOKE, seq);
		put_field(b[n] + 12, 4, true, pick(16 + 4 * below(4), 4));
		for (unsigned k = 16; k + 4 <= fs->blocksize && k < 64; k += 4)
			put_field(b[n] + k, 4, true, (uint32_t)target(jsb));
		n++;
	}
	if (below(4)) {	/* a commit block, usually of this transaction */
		header(b[n], T_COMMIT, below(4) ? seq : seq + 1 + below(3));
		n++;
	}
	for (i = 0; i < n && !err; i++) {
		blk64_t p = 0;

		err = ext2fs_bmap2(fs, ino, in, NULL, 0, first + i, NULL, &p);
		if (!err && p)
			err = io_channel_write_blk64(fs->io, p, 1, b[i]);
	}
	for (i = 0; i < 8; i++)
		free(b[i]);
	fprintf(stderr, "craft: journal log of %u blocks, %u tags\n", n, ntags);
	return err;
}

int journal(void)
{
	ext2_ino_t ino = fs->super->s_journal_inum;
	struct ext2_inode in;
	blk64_t jsb = 0;
	uint8_t *buf;
	errcode_t err;

	if (!ext2fs_has_feature_journal(fs->super) || !ino)
		return inodes(false);	/* no journal in this base: the inode family */
	err = ext2fs_read_inode(fs, ino, &in);
	if (!err)
		err = ext2fs_bmap2(fs, ino, &in, NULL, 0, 0, NULL, &jsb);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err || !jsb)
		return fail("journal superblock", err);
	err = io_channel_read_blk64(fs->io, jsb, 1, buf);
	if (!err && below(3) == 0) {
		damage(buf, fs->blocksize, jsb_fields, sizeof(jsb_fields) / sizeof(jsb_fields[0]), true);
		if (below(2))
			ext2fs_set_feature_journal_needs_recovery(fs->super);
	} else if (!err) {
		uint32_t first = (uint32_t)get_field(buf + 20, 4, true);
		uint32_t seq = (uint32_t)get_field(buf + 24, 4, true);

		put_field(buf + 28, 4, true, first);	/* s_start: a log to replay */
		err = write_log(ino, &in, first, seq, (uint32_t)get_field(buf + 40, 4, true), jsb);
		ext2fs_set_feature_journal_needs_recovery(fs->super);
	}
	if (!err)
		err = io_channel_write_blk64(fs->io, jsb, 1, buf);
	ext2fs_mark_super_dirty(fs);
	ext2fs_free_mem(&buf);
	return err ? fail("journal", err) : 0;
}
