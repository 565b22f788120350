/* server/bmap.c: the block maps of ext2/ext3 files (direct and indirect
 * blocks), for map.c: runs found block by block (a hole skips whole empty
 * indirect blocks), and new blocks that are zeroed on the device, since a
 * block map has no unwritten state. */
#include "bmap.h"
#include "fdio.h"
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

/* Where a hole past what a block map addresses ends: the last block whose
 * byte offset still fits in 63 bits, so that callers' (lblk + len) * bs
 * cannot overflow. */
static blk64_t far_end(struct ec_ctx *c)
{
	return (1ULL << 63) / c->fs->blocksize;
}

/* The physical block of lblk, 0 for a hole. */
static int lookup(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, char *buf, blk64_t lblk,
		  blk64_t *pblk)
{
	errcode_t err = ext2fs_bmap2(c->fs, ino, (struct ext2_inode *)in, buf, 0, lblk, NULL,
				     pblk);

	return err ? ec_errno(c, err, ino, "bmap") : 0;
}

/* Reads the indirect block blk into buf: false when blk is not a block of
 * the filesystem or cannot be read. */
static bool read_ind(struct ec_ctx *c, blk64_t blk, char *buf)
{
	ext2_filsys fs = c->fs;

	return blk >= fs->super->s_first_data_block && blk < ext2fs_blocks_count(fs->super) &&
	       !io_channel_read_blk64(fs->io, blk, 1, buf);
}

/* The zero pointers from i on in the indirect block in buf (p of them). */
static blk64_t zeros_from(const char *buf, blk64_t i, blk64_t p)
{
	const __u32 *ptr = (const __u32 *)buf;
	blk64_t n = 0;

	while (i + n < p && !ptr[i + n])
		n++;
	return n;
}

/* How many blocks from lblk, a hole (libext2fs said so), are surely holes:
 * the rest of the missing indirect block, or of the run of zero pointers,
 * that the way down to lblk meets. At least 1. */
static blk64_t hole_span(struct ec_ctx *c, ec_inode *in, char *buf, blk64_t lblk)
{
	blk64_t p = c->fs->blocksize / 4, size = p, off = lblk - EXT2_NDIR_BLOCKS, blk, n;
	int slot = EXT2_IND_BLOCK;

	if (lblk < EXT2_NDIR_BLOCKS)
		return 1;
	while (off >= size && slot < EXT2_TIND_BLOCK) {
		off -= size;
		size *= p;
		slot++;
	}
	if (!in->i_block[slot])
		return size - off;
	/* down the tree: blk covers size blocks, lblk is block off of them */
	for (blk = in->i_block[slot]; size > 1; off %= size) {
		size /= p;
		if (!read_ind(c, blk, buf))
			return 1;
		n = zeros_from(buf, off / size, p);
		if (n)
			return n * size - off % size;
		blk = ext2fs_le32_to_cpu(((const __u32 *)buf)[off / size]);
	}
	return 1;
}

int ec_bmap_run(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, struct ec_map *m)
{
	blk64_t limit = bmap_limit(c), pblk, i = 0;
	char *buf;
	int rc = 0, step;

	*m = (struct ec_map){ .lblk = lblk, .state = EC_MAP_HOLE };
	if (lblk >= limit) {
		m->len = far_end(c) > lblk ? far_end(c) - lblk : 1;
		return 0;
	}
	if (ext2fs_get_mem(3 * c->fs->blocksize, &buf))
		return ENOMEM;
	for (step = 0; step < BMAP_SCAN && lblk + i < limit; step++) {
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
		i += pblk ? 1 : hole_span(c, in, buf, lblk + i);
	}
	ext2fs_free_mem(&buf);
	if (i > limit - lblk)
		i = limit - lblk;
	/* a hole that reaches the end of the map goes on for ever */
	m->len = m->state == EC_MAP_HOLE && lblk + i == limit ? far_end(c) - lblk : i;
	return rc;
}
/* Zeroes the n blocks from pblk on the device; 0 or an errno. */
static int zero(struct ec_ctx *c, ext2_ino_t ino, blk64_t pblk, blk64_t n)
{
	errcode_t err;

	ec_fdio_direct(c->fs->io, true);	/* file data: the kernel may write it next */
	err = n ? ext2fs_zero_blocks2(c->fs, pblk, (int)n, NULL, NULL) : 0;
	ec_fdio_direct(c->fs->io, false);

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
