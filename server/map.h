/* server/map.h: the server's one reader and reshaper of file block maps
 * (extent trees here, block maps through bmap.h): the run of blocks a
 * logical block belongs to, where new blocks go, converting unwritten
 * blocks and merging neighbouring extents. */
#ifndef EC_MAP_H
#define EC_MAP_H

#include "ctx.h"

enum ec_map_state { EC_MAP_HOLE, EC_MAP_UNWRITTEN, EC_MAP_WRITTEN };

/* A run of logical blocks [lblk, lblk + len) in one state; pblk is the
 * physical block of lblk (0 for a hole). */
struct ec_map {
	blk64_t lblk, len, pblk;
	enum ec_map_state state;
};

/* The largest run that starts at lblk, across neighbouring extents that are
 * logically and physically contiguous and in the same state; a hole runs to
 * the next extent (or to the end of the 32-bit block space). h is an open
 * extent handle of ino; its position afterwards is unspecified. */
int ec_map_run(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h, blk64_t lblk,
	       struct ec_map *m);

/* The functions below take in, the inode of ino as the request read it
 * (once per request: a whole-block write or an IOEND reads it once). They
 * work on that copy, keep it current, and write it when they change it. */

/* The run at lblk of ino, whatever its layout: ec_map_run() for an extent
 * tree, ec_bmap_run() (bmap.h) for a block map. */
int ec_map_find(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, struct ec_map *m);

/* The same run, from the start of the extent (or hole) lblk lies in: what a
 * mapping cache wants, so that later requests before lblk in the extent
 * need no lookup. A block-mapped file's run still starts at lblk. */
int ec_map_whole(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk,
		 struct ec_map *m);

/* Gives every hole in [lblk, lblk + n) blocks of its own, unwritten or not
 * (a block-mapped file's new blocks are zeroed instead: ec_bmap_fill()),
 * as few and as long runs as free space allows, right after the extent
 * before each hole (or before the one after it), so that they can join:
 * only the holes, never more (libext2fs's fallocate fills the whole hole
 * around a range: a 1-block write before a far extent took the disk). */
int ec_map_fill(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, blk64_t n,
		bool unwritten);

/* Marks the unwritten blocks of [lblk, lblk + n) written (data has reached
 * them) and joins what then fits together. */
int ec_map_convert(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, blk64_t n);

/* Joins every pair of neighbouring extents that touch [lblk, lblk + n) (the
 * extents on both sides included) and are logically and physically
 * contiguous and in the same state, as kernel ext4 does: an appending write
 * grows the file's last extent instead of adding one. */
int ec_map_merge(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, blk64_t n);

#endif
