/* server/bmap.h: block maps (ext2/ext3 files without extents) for map.c:
 * the run a logical block belongs to, and zeroed new blocks for holes. */
#ifndef EC_BMAP_H
#define EC_BMAP_H

#include "map.h"

/* The run at lblk of the block-mapped file ino (inode in): written blocks
 * that are physically contiguous, or a hole, found block by block (at most
 * 1024); past what a block map can address, a hole to 2^32. */
int ec_bmap_run(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, struct ec_map *m);

/* Gives every hole in [lblk, lblk + n) a block, zeroed on the device before
 * this returns (a block map cannot say "unwritten"); in is kept current and
 * written, as in map.h. */
int ec_bmap_fill(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, blk64_t n);

#endif
