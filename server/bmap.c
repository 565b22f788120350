/* server/bmap.c: the block maps of ext2/ext3 files (direct and indirect
 * blocks), for map.c: runs found block by block, and new blocks that are
 * zeroed on the device, since a block map has no unwritten state. */
#include "bmap.h"
#include "zone.h"

#include <errno.h>

/* Lookups per run: each one walks up to three indirect blocks (cached). */
#define BMAP_SCAN	1024

/* Logical blocks a block map can address: 12 direct, then single, double
 * and triple indirect blocks of bs / 4 pointers each (below 2^32). */
static blk64_t bmap_limit(struct ec_ctx *c)
{
	blk64_t p = c->fs->blocksize / 4, n = 12 + p + p * p + p * p * p;

	return n < (1ULL << 32) ? n : 1ULL << 32;
}

/* The physical block of lblk, 0 for a hole. */
static int lookup(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, char *buf, blk64_t lblk,
		  blk64_t *pblk)
{
	errcode_t err = ext2fs_bmap2(c->fs, ino, (struct ext2_inode *)in, buf, 0, lblk, NULL,
				     pblk);

	return err ? ec_errno(c, err, ino, "bmap") : 0;
}

int ec_bmap_run(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, struct ec_map *m)
{
	blk64_t limit = bmap_limit(c), pblk, i;
	char *buf;
	int rc = 0;

	*m = (struct ec_map){ .lblk = lblk, .state = EC_MAP_HOLE };
	if (lblk >= limit) {
		m->len = (1ULL << 32) > lblk ? (1ULL << 32) - lblk : 1;
		return 0;
	}
	if (ext2fs_get_mem(3 * c->fs->blocksize, &buf))
		return ENOMEM;
	for (i = 0; i < BMAP_SCAN && lblk + i < limit; i++) {
		rc = lookup(c, ino, in, buf, lblk + i, &pblk);
		if (rc)
			break;
		if (!i) {
			m->state = pblk ? EC_MAP_WRITTEN : EC_MAP_HOLE;
			m->pblk = pblk;
		} else if (pblk ? m->state != EC_MAP_WRITTEN || pblk != m->pblk + i
				: m->state != EC_MAP_HOLE) {
			break;
		}
	}
	ext2fs_free_mem(&buf);
	m->len = i;
	return rc;
}

/* Zeroes the n blocks from pblk on the device; 0 or an errno. */
static int zero(struct ec_ctx *c, ext2_ino_t ino, blk64_t pblk, blk64_t n)
{
	errcode_t err = n ? ext2fs_zero_blocks2(c->fs, pblk, (int)n, NULL, NULL) : 0;

	return err ? ec_errno(c, err, ino, "zero new blocks") : 0;
}

int ec_bmap_fill(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, blk64_t n)
{
	blk64_t start = 0, run = 0, pblk, i;
	char *buf;
	int rc = 0, zrc;

	if (lblk >= bmap_limit(c) || n > bmap_limit(c) - lblk)
		return EFBIG;
	if (ext2fs_get_mem(3 * c->fs->blocksize, &buf))
		return ENOMEM;
	/* bmap2 writes the inode and the indirect blocks as it allocates; the
	 * new blocks are zeroed, run by run, before anyone is told of them */
	for (i = 0; !rc && i < n; i++) {
		rc = lookup(c, ino, in, buf, lblk + i, &pblk);
		if (rc || pblk)
			continue;
		errcode_t err = ext2fs_bmap2(c->fs, ino, (struct ext2_inode *)in, buf,
					     BMAP_ALLOC, lblk + i, NULL, &pblk);

		if (err) {
			rc = ec_errno(c, err, ino, "allocate");
			break;
		}
		rc = ec_zone_check(c, ino, pblk, 1);
		if (!rc && run && pblk == start + run && run < (1u << 20)) {
			run++;
			continue;
		}
		if (rc)
			break;
		rc = zero(c, ino, start, run);
		start = pblk;
		run = 1;
	}
	/* blocks already in the map are zeroed even when a later one failed */
	zrc = zero(c, ino, start, run);
	ext2fs_free_mem(&buf);
	return rc ? rc : zrc;
}
