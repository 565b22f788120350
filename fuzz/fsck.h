/* fuzz/fsck.h: a cheap, deterministic consistency check of an open
 * filesystem (what e2fsck's passes 1 and 5 would say about blocks and
 * inode counts), for fuzz/image to run before and after its writes. */
#ifndef EC_FUZZ_FSCK_H
#define EC_FUZZ_FSCK_H

#include <ext2fs/ext2fs.h>
#include <stddef.h>

enum fz_fsck {
	FZ_FSCK_CLEAN,		/* every invariant checked holds */
	FZ_FSCK_BROKEN,		/* one does not: why says which */
	FZ_FSCK_UNKNOWN,	/* not checked (too much work, no memory) */
};

/* Checks fs as the server has it open (its bitmaps in memory): every block
 * that an inode in use, or the filesystem's own metadata, references is
 * inside the filesystem, referenced once (block-map and extent-tree
 * blocks, data; xattr blocks may be shared) and marked in the block bitmap,
 * and no other block is; each inode's i_blocks counts its blocks; an
 * inode past the reserved ones is in the bitmap exactly when it has links;
 * the group descriptors' free block and inode counts and used directory
 * counts match the bitmaps and inodes; every root directory entry names an
 * inode in use, and the root's link count is 2 plus its subdirectories.
 * The work is bounded (a block visit budget). */
enum fz_fsck fz_fsck(ext2_filsys fs, char *why, size_t n);

#endif
