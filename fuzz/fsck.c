/* fuzz/fsck.c: fuzz/image's consistency check (fsck.h), built on
 * libext2fs's own readers: an inode scan, block iteration, directory
 * iteration and the in-memory bitmaps. */
#include "fsck.h"

#include <et/com_err.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block visits one check may make (a block map can name the same indirect
 * block many times over: a hostile image could ask for 2^30 visits). */
#define VISIT_BUDGET	(1u << 18)

struct ck {
	ext2_filsys fs;
	ext2fs_block_bitmap seen;	/* what inodes and metadata reference */
	__u32 *dirs;			/* directories in use, per group */
	unsigned budget;		/* block visits left */
	ext2_ino_t ino;			/* the inode being visited */
	blk64_t count;			/* its blocks */
	bool shared;			/* the inode may share its blocks */
	enum fz_fsck res;
	char *why;
	size_t n;
};

/* Records the first inconsistency (later ones are not reported). */
static void broken(struct ck *k, const char *fmt, ...)
{
	va_list ap;

	if (k->res != FZ_FSCK_CLEAN)
		return;
	k->res = FZ_FSCK_BROKEN;
	va_start(ap, fmt);
	vsnprintf(k->why, k->n, fmt, ap);
	va_end(ap);
}

static bool in_fs(ext2_filsys fs, blk64_t blk)
{
	return blk >= fs->super->s_first_data_block && blk < ext2fs_blocks_count(fs->super);
}

/* One block referenced by owner (an inode, 0 for the filesystem). A
 * bigalloc cluster holds many blocks of one file: no double check there. */
static void claim(struct ck *k, blk64_t blk, ext2_ino_t owner, bool shared)
{
	if (!in_fs(k->fs, blk)) {
		broken(k, "inode %u references block %llu outside the filesystem", owner,
		       (unsigned long long)blk);
		return;
	}
	if (!shared && !ext2fs_has_feature_bigalloc(k->fs->super) &&
	    ext2fs_test_block_bitmap2(k->seen, blk))
		broken(k, "block %llu is referenced twice (the second time by inode %u)",
		       (unsigned long long)blk, owner);
	ext2fs_mark_block_bitmap2(k->seen, blk);
}

/* The superblocks, group descriptors, bitmaps and inode tables. */
static void claim_metadata(struct ck *k)
{
	ext2_filsys fs = k->fs;
	dgrp_t g;
	blk64_t b;

	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_reserve_super_and_bgd(fs, g, k->seen);
		claim(k, ext2fs_block_bitmap_loc(fs, g), 0, false);
		claim(k, ext2fs_inode_bitmap_loc(fs, g), 0, false);
		for (b = 0; b < fs->inode_blocks_per_group; b++)
			claim(k, ext2fs_inode_table_loc(fs, g) + b, 0, false);
	}
	if (ext2fs_has_feature_mmp(fs->super) && fs->super->s_mmp_block)
		claim(k, fs->super->s_mmp_block, 0, false);
}

static int visit(ext2_filsys fs, blk64_t *blk, e2_blkcnt_t cnt, blk64_t ref, int off, void *arg)
{
	struct ck *k = arg;

	(void)fs, (void)cnt, (void)ref, (void)off;
	if (!k->budget--) {
		k->res = k->res == FZ_FSCK_CLEAN ? FZ_FSCK_UNKNOWN : k->res;
		return BLOCK_ABORT;
	}
	claim(k, *blk, k->ino, k->shared);
	k->count++;
	return k->res == FZ_FSCK_CLEAN ? 0 : BLOCK_ABORT;
}

/* The blocks of inode ino: its map (data, indirect and extent tree
 * blocks) and its xattr block; then its i_blocks. */
static void claim_inode(struct ck *k, ext2_ino_t ino, struct ext2_inode *in)
{
	ext2_filsys fs = k->fs;
	blk64_t acl = ext2fs_file_acl_block(fs, in), want;
	errcode_t err = 0;

	k->ino = ino;
	k->count = 0;
	k->shared = ino == EXT2_RESIZE_INO; /* its blocks are the reserved GDT */
	if (ext2fs_inode_has_valid_blocks2(fs, in))
		err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, visit, k);
	if (err && k->res == FZ_FSCK_CLEAN)
		broken(k, "inode %u: block iteration failed: %s", ino, error_message(err));
	if (k->res != FZ_FSCK_CLEAN)
		return;
	if (acl) {
		claim(k, acl, ino, true);
		k->count++;
	}
	want = k->count * (fs->blocksize / 512);
	if ((ino == EXT2_ROOT_INO || ino >= EXT2_FIRST_INODE(fs->super)) &&
	    !ext2fs_has_feature_bigalloc(fs->super) && ext2fs_get_stat_i_blocks(fs, in) != want)
		broken(k, "inode %u: i_blocks %llu, its blocks make %llu", ino,
		       (unsigned long long)ext2fs_get_stat_i_blocks(fs, in),
		       (unsigned long long)want);
}

/* Every inode: the bitmap against its links, its blocks if in use. */
static void scan_inodes(struct ck *k)
{
	ext2_filsys fs = k->fs;
	ext2_inode_scan scan;
	struct ext2_inode in;
	ext2_ino_t ino;

	if (ext2fs_open_inode_scan(fs, 0, &scan)) {
		k->res = FZ_FSCK_UNKNOWN;
		return;
	}
	while (k->res == FZ_FSCK_CLEAN) {
		errcode_t err = ext2fs_get_next_inode(scan, &ino, &in);
		bool used;

		if (err) {
			broken(k, "inode scan: %s", error_message(err));
			break;
		}
		if (!ino)
			break;
		used = ext2fs_test_inode_bitmap2(fs->inode_map, ino);
		if (ino >= EXT2_FIRST_INODE(fs->super) && used != (in.i_links_count > 0)) {
			broken(k, "inode %u: %s in the bitmap with %u links", ino,
			       used ? "in use" : "free", in.i_links_count);
			break;
		}
		if (!used)
			continue;
		if (LINUX_S_ISDIR(in.i_mode))
			k->dirs[ext2fs_group_of_ino(fs, ino)]++;
		claim_inode(k, ino, &in);
	}
	ext2fs_close_inode_scan(scan);
}

/* The block bitmap against what was referenced, cluster by cluster. */
static void compare_blocks(struct ck *k)
{
	ext2_filsys fs = k->fs;
	blk64_t b, step = EXT2FS_CLUSTER_RATIO(fs);

	for (b = fs->super->s_first_data_block; b < ext2fs_blocks_count(fs->super); b += step) {
		bool used = ext2fs_test_block_bitmap2(fs->block_map, b);

		if (used != !!ext2fs_test_block_bitmap2(k->seen, b)) {
			broken(k, "block %llu is %s in the bitmap but %sreferenced",
			       (unsigned long long)b, used ? "used" : "free", used ? "not " : "");
			return;
		}
	}
}

/* Each group descriptor's counts against the bitmaps and the scan. */
static void compare_groups(struct ck *k)
{
	ext2_filsys fs = k->fs;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count && k->res == FZ_FSCK_CLEAN; g++) {
		blk64_t b, last = ext2fs_group_last_block2(fs, g), free_c = 0;
		ext2_ino_t i, first = g * fs->super->s_inodes_per_group + 1, free_i = 0;

		for (b = ext2fs_group_first_block2(fs, g); b <= last; b += EXT2FS_CLUSTER_RATIO(fs))
			free_c += !ext2fs_test_block_bitmap2(fs->block_map, b);
		for (i = first; i < first + fs->super->s_inodes_per_group; i++)
			free_i += !ext2fs_test_inode_bitmap2(fs->inode_map, i);
		if (free_c != ext2fs_bg_free_blocks_count(fs, g) ||
		    free_i != ext2fs_bg_free_inodes_count(fs, g))
			broken(k, "group %u: %llu free clusters and %u free inodes, its descriptor "
			       "says %u and %u", g, (unsigned long long)free_c, free_i,
			       ext2fs_bg_free_blocks_count(fs, g), ext2fs_bg_free_inodes_count(fs, g));
		else if (k->dirs[g] != ext2fs_bg_used_dirs_count(fs, g))
			broken(k, "group %u: %u directories, its descriptor says %u", g,
			       k->dirs[g], ext2fs_bg_used_dirs_count(fs, g));
	}
}

struct root_walk {
	struct ck *k;
	unsigned subdirs;
};

static int root_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int off, int bs,
		      char *buf, void *arg)
{
	struct root_walk *w = arg;
	ext2_filsys fs = w->k->fs;
	ext2_ino_t ino = d->inode;
	struct ext2_inode in;

	(void)dir, (void)off, (void)bs, (void)buf;
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE)
		return 0;
	if (!ino || ino > fs->super->s_inodes_count ||
	    !ext2fs_test_inode_bitmap2(fs->inode_map, ino) || ext2fs_read_inode(fs, ino, &in) ||
	    !in.i_links_count) {
		broken(w->k, "root entry %.*s names inode %u, not in use",
		       ext2fs_dirent_name_len(d), d->name, ino);
		return DIRENT_ABORT;
	}
	w->subdirs += LINUX_S_ISDIR(in.i_mode);
	return 0;
}

/* The root directory's entries and link count. */
static void check_root(struct ck *k)
{
	struct root_walk w = { .k = k };
	struct ext2_inode root;
	errcode_t err = ext2fs_dir_iterate2(k->fs, EXT2_ROOT_INO, 0, NULL, root_entry, &w);

	if (err) {
		broken(k, "root directory: %s", error_message(err));
		return;
	}
	if (k->res != FZ_FSCK_CLEAN || ext2fs_read_inode(k->fs, EXT2_ROOT_INO, &root))
		return;
	if (root.i_links_count != 1 && root.i_links_count != 2 + w.subdirs)
		broken(k, "root has %u links and %u subdirectories", root.i_links_count,
		       w.subdirs);
}

enum fz_fsck fz_fsck(ext2_filsys fs, char *why, size_t n)
{
	struct ck k = { .fs = fs, .budget = VISIT_BUDGET, .why = why, .n = n };

	*why = 0;
	if ((!fs->block_map || !fs->inode_map) && ext2fs_read_bitmaps(fs))
		return FZ_FSCK_UNKNOWN;
	k.dirs = calloc(fs->group_desc_count, sizeof(*k.dirs));
	if (!k.dirs || ext2fs_allocate_block_bitmap(fs, "fuzz/fsck", &k.seen)) {
		free(k.dirs);
		return FZ_FSCK_UNKNOWN;
	}
	claim_metadata(&k);
	if (k.res == FZ_FSCK_CLEAN)
		scan_inodes(&k);
	if (k.res == FZ_FSCK_CLEAN)
		compare_blocks(&k);
	if (k.res == FZ_FSCK_CLEAN)
		compare_groups(&k);
	if (k.res == FZ_FSCK_CLEAN)
		check_root(&k);
	ext2fs_free_block_bitmap(k.seen);
	free(k.dirs);
	return k.res;
}
