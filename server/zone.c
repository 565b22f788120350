/* server/zone.c: the "system zone": blocks holding the filesystem's own
 * metadata (superblocks, group descriptors, bitmaps, inode tables, the
 * journal). A file extent that reaches into it is corruption; checking it
 * before direct data I/O keeps file writes from overwriting metadata. */
#include "zone.h"

#include <errno.h>

static int mark_journal_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			      blk64_t ref_blk, int ref_offset, void *priv)
{
	(void)blockcnt, (void)ref_blk, (void)ref_offset;
	if (*blocknr < ext2fs_blocks_count(fs->super))
		ext2fs_mark_block_bitmap2(priv, *blocknr);
	return 0;
}

static void mark(ext2_filsys fs, ext2fs_block_bitmap z, blk64_t start, blk64_t n)
{
	blk64_t end = ext2fs_blocks_count(fs->super);

	if (start < end && n)
		ext2fs_mark_block_bitmap_range2(z, start, (unsigned int)(n < end - start ? n : end - start));
}

int ec_zone_build(struct ec_ctx *c)
{
	ext2_filsys fs = c->fs;
	errcode_t err = ext2fs_allocate_block_bitmap(fs, "system zone", &c->zone);
	dgrp_t g;

	if (err)
		return ec_errno(c, err, 0, "system zone");
	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_reserve_super_and_bgd(fs, g, c->zone);
		mark(fs, c->zone, ext2fs_block_bitmap_loc(fs, g), 1);
		mark(fs, c->zone, ext2fs_inode_bitmap_loc(fs, g), 1);
		mark(fs, c->zone, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group);
	}
	if (ext2fs_has_feature_journal(fs->super) && fs->super->s_journal_inum) {
		err = ext2fs_block_iterate3(fs, fs->super->s_journal_inum, BLOCK_FLAG_READ_ONLY, NULL,
					    mark_journal_block, c->zone);
		if (err)
			return ec_errno(c, err, fs->super->s_journal_inum, "system zone: journal");
	}
	return 0;
}

int ec_zone_check(struct ec_ctx *c, ext2_ino_t ino, blk64_t pblk, blk64_t n)
{
	blk64_t end = ext2fs_blocks_count(c->fs->super);

	if (pblk < c->fs->super->s_first_data_block || pblk >= end || n > end - pblk)
		return ec_corrupt(c, ino, "extent points outside the filesystem");
	while (n) {
		unsigned int chunk = n > (1u << 30) ? 1u << 30 : (unsigned int)n;
		if (c->zone && !ext2fs_test_block_bitmap_range2(c->zone, pblk, chunk))
			return ec_corrupt(c, ino, "extent overlaps filesystem metadata");
		pblk += chunk;
		n -= chunk;
	}
	return 0;
}

void ec_zone_free(struct ec_ctx *c)
{
	if (c->zone)
		ext2fs_free_block_bitmap(c->zone);
	c->zone = NULL;
}
