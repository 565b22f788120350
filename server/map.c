/* server/map.c: walking and merging extent trees (map.h); block-mapped files
 * are bmap.c's. Walks are bounded
 * by the tree's own order, not by a step count: every extent visited must
 * start after the previous one ends, so a corrupt tree that loops or goes
 * backwards is reported, and any tree e2fsck accepts is walked whole. */
#include "map.h"
#include "bmap.h"

#include <errno.h>

#define END_OF_BLOCKS	(1ULL << 32)	/* extent trees map 32-bit logical blocks */

static enum ec_map_state state_of(const struct ext2fs_extent *e)
{
	return e->e_flags & EXT2_EXTENT_FLAGS_UNINIT ? EC_MAP_UNWRITTEN : EC_MAP_WRITTEN;
}

/* The leaf entry after the current one: its next sibling, or up until an
 * index has a next sibling and down its first branch again. (libext2fs's
 * NEXT_LEAF cannot be used after extent_goto: it walks down into the leaf it
 * came from again, since goto never marks an index as visited.) */
static errcode_t next_entry(ext2_extent_handle_t h, struct ext2fs_extent *e)
{
	errcode_t err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, e);
	int ups = 0;

	while (err == EXT2_ET_EXTENT_NO_NEXT) {
		err = ext2fs_extent_get(h, EXT2_EXTENT_UP, e);
		if (err)
			return err == EXT2_ET_EXTENT_NO_UP ? EXT2_ET_EXTENT_NO_NEXT : err;
		ups++;
		err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, e);
	}
	while (!err && ups--)
		err = ext2fs_extent_get(h, EXT2_EXTENT_DOWN, e);
	if (!err && !(e->e_flags & EXT2_EXTENT_FLAGS_LEAF))
		err = EXT2_ET_EXTENT_HEADER_BAD;
	return err;
}

/* The next leaf extent after *e (which it replaces); 1 when there is none. */
static int next_leaf(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h,
		     struct ext2fs_extent *e)
{
	blk64_t end = e->e_lblk + e->e_len;
	errcode_t err = next_entry(h, e);

	if (err == EXT2_ET_EXTENT_NO_NEXT || err == EXT2_ET_NO_CURRENT_NODE)
		return 1;
	if (err)
		return -ec_errno(c, err, ino, "extent_get");
	if (e->e_lblk < end || !e->e_len)
		return -ec_corrupt(c, ino, "extent tree out of order");
	return 0;
}

/* Extends m over the contiguous extents after e (the one m starts in). */
static int extend_run(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h,
		      struct ext2fs_extent e, struct ec_map *m)
{
	int rc;

	while ((rc = next_leaf(c, ino, h, &e)) == 0 && e.e_lblk == m->lblk + m->len &&
	       state_of(&e) == m->state && e.e_pblk == m->pblk + m->len)
		m->len += e.e_len;
	return rc < 0 ? -rc : 0;
}

/* ec_map_run(), and in *first the first block of the extent or hole lblk
 * lies in (lblk itself where that is not known without another lookup: a
 * hole before the first extent of a leaf). */
static int run_at(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h, blk64_t lblk,
		  struct ec_map *m, blk64_t *first)
{
	struct ext2fs_extent e;
	errcode_t err = lblk < END_OF_BLOCKS ? ext2fs_extent_goto(h, lblk) : EXT2_ET_EXTENT_NOT_FOUND;
	int rc;

	*m = (struct ec_map){ .lblk = lblk, .state = EC_MAP_HOLE };
	*first = lblk;
	if (err && err != EXT2_ET_EXTENT_NOT_FOUND)
		return ec_errno(c, err, ino, "extent_goto");
	err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
	if (err == EXT2_ET_NO_CURRENT_NODE || lblk >= END_OF_BLOCKS) {
		m->len = lblk < END_OF_BLOCKS ? END_OF_BLOCKS - lblk : 1;
		*first = lblk < END_OF_BLOCKS ? 0 : lblk;
		return 0; /* no extent at all: one hole */
	}
	if (err)
		return ec_errno(c, err, ino, "extent_get");
	if (e.e_lblk <= lblk && lblk < e.e_lblk + e.e_len) {
		m->state = state_of(&e);
		m->pblk = e.e_pblk + (lblk - e.e_lblk);
		m->len = e.e_lblk + e.e_len - lblk;
		*first = e.e_lblk;
		return extend_run(c, ino, h, e, m);
	}
	/* a hole: goto left the extent before it (or the first after it) current */
	while (e.e_lblk <= lblk) {
		*first = e.e_lblk + e.e_len;
		rc = next_leaf(c, ino, h, &e);
		if (rc) {
			m->len = END_OF_BLOCKS - lblk;
			return rc < 0 ? -rc : 0;
		}
		if (e.e_lblk <= lblk && lblk < e.e_lblk + e.e_len)
			return ec_corrupt(c, ino, "extent lookup missed an extent");
	}
	m->len = e.e_lblk - lblk;
	return 0;
}

int ec_map_run(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h, blk64_t lblk,
	       struct ec_map *m)
{
	blk64_t first;

	return run_at(c, ino, h, lblk, m, &first);
}

/* An extent handle on in (not a fresh read of ino): what the handle changes
 * in the inode (i_block, i_blocks) lands in the caller's copy. */
static int open_tree(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, ext2_extent_handle_t *h)
{
	errcode_t err = ext2fs_extent_open2(c->fs, ino, (struct ext2_inode *)in, h);

	return err ? ec_errno(c, err, ino, "extent_open") : 0;
}

/* Extent-mapped? (Opening an extent handle on an empty block map would
 * turn it into an extent tree; a block map has nothing unwritten to convert
 * and no extents to join.) */
static bool has_tree(const ec_inode *in)
{
	return in->i_flags & EXT4_EXTENTS_FL;
}

/* The run at lblk (whole: from the first block of its extent or hole). */
static int find_run(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk,
		    struct ec_map *m, bool whole)
{
	ext2_extent_handle_t h;
	blk64_t first;
	int rc;

	if (!has_tree(in))
		return ec_bmap_run(c, ino, in, lblk, m);
	rc = open_tree(c, ino, in, &h);
	if (rc)
		return rc;
	rc = run_at(c, ino, h, lblk, m, &first);
	ext2fs_extent_free(h);
	if (rc || !whole || first >= lblk)
		return rc;
	if (m->state != EC_MAP_HOLE)
		m->pblk -= lblk - first;
	m->len += lblk - first;
	m->lblk = first;
	return 0;
}

int ec_map_find(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, struct ec_map *m)
{
	return find_run(c, ino, in, lblk, m, false);
}

int ec_map_whole(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk,
		 struct ec_map *m)
{
	return find_run(c, ino, in, lblk, m, true);
}

/* Where new blocks for lblk should go: right after the extent before it (or
 * right before the one after it), at the same distance as in the file, so
 * that extents can later join; ~0 (libext2fs chooses) for an empty file. */
static blk64_t goal_for(struct ec_ctx *c, ext2_extent_handle_t h, blk64_t lblk)
{
	blk64_t goal = ~0ULL, first = c->fs->super->s_first_data_block;
	blk64_t blocks = ext2fs_blocks_count(c->fs->super);
	struct ext2fs_extent e;

	/* goto leaves the extent before lblk current, or the first after it */
	if (lblk < END_OF_BLOCKS && ext2fs_extent_goto(h, lblk) == EXT2_ET_EXTENT_NOT_FOUND &&
	    !ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e)) {
		if (e.e_lblk < lblk)
			goal = e.e_pblk + (lblk - e.e_lblk);
		else if (e.e_pblk >= first + (e.e_lblk - lblk))
			goal = e.e_pblk - (e.e_lblk - lblk);
	}
	return goal < blocks ? goal : ~0ULL;
}

static bool joinable(const struct ext2fs_extent *a, const struct ext2fs_extent *b)
{
	blk64_t max = a->e_flags & EXT2_EXTENT_FLAGS_UNINIT ? EXT_UNINIT_MAX_LEN : EXT_INIT_MAX_LEN;

	return a->e_lblk + a->e_len == b->e_lblk && a->e_pblk + a->e_len == b->e_pblk &&
	       state_of(a) == state_of(b) && a->e_len + b->e_len <= max;
}

/* Joins the extent holding lblk with the one after it if they fit together:
 * the second is deleted, the first lengthened. *next: where to look next
 * (lblk again after a join, else further on; END_OF_BLOCKS at the end). */
static int join_next(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h, blk64_t lblk,
		     blk64_t *next)
{
	struct ext2fs_extent a, b;
	errcode_t err = ext2fs_extent_goto(h, lblk);
	int rc;

	*next = END_OF_BLOCKS;
	if (err == EXT2_ET_EXTENT_NOT_FOUND) {
		/* lblk is in a hole: go on at the first extent after it */
		if (ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &a))
			return 0;
		rc = a.e_lblk > lblk ? 0 : next_leaf(c, ino, h, &a);
		if (!rc)
			*next = a.e_lblk;
		return rc < 0 ? -rc : 0;
	}
	if (err == EXT2_ET_NO_CURRENT_NODE)
		return 0;
	if (err || (err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &a)))
		return ec_errno(c, err, ino, "extent_goto");
	b = a;
	rc = next_leaf(c, ino, h, &b);
	if (rc)
		return rc < 0 ? -rc : 0;
	if (!joinable(&a, &b)) {
		*next = b.e_lblk;
		return 0;
	}
	/* delete b (current), then lengthen a; a's start, and so every index
	 * above it, stays; the parents of b's leaf are fixed by the deletion */
	err = ext2fs_extent_delete(h, 0);
	if (!err)
		err = ext2fs_extent_fix_parents(h);
	if (!err)
		err = ext2fs_extent_goto(h, a.e_lblk);
	if (!err) {
		a.e_len += b.e_len;
		err = ext2fs_extent_replace(h, 0, &a);
	}
	if (!err)
		err = ext2fs_extent_fix_parents(h);
	*next = lblk;
	return err ? ec_errno(c, err, ino, "extent merge") : 0;
}

/* Calls each() for every run of [lblk, lblk + n), cut to that range; each()
 * may change the tree from its run on. */
typedef int (*run_fn)(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h,
		      const struct ec_map *m, void *arg);
static int for_runs(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h, blk64_t lblk,
		    blk64_t n, run_fn each, void *arg)
{
	blk64_t pos = lblk, end = lblk + n;
	int rc = 0;

	while (!rc && pos < end) {
		struct ec_map m;

		rc = ec_map_run(c, ino, h, pos, &m);
		if (rc)
			break;
		if (m.lblk + m.len > end)
			m.len = end - m.lblk;
		rc = each(c, ino, h, &m, arg);
		pos = m.lblk + m.len;
	}
	return rc;
}

struct fill {
	ec_inode *in;		/* the handle's inode: i_blocks is counted there */
	bool unwritten;
};

/* A hole gets blocks in runs from goal_for() on. */
static int fill_hole(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h,
		     const struct ec_map *m, void *arg)
{
	const struct fill *f = arg;
	int flags = f->unwritten ? EXT2_EXTENT_SET_BMAP_UNINIT : 0;
	blk64_t lblk = m->lblk, n = m->len, goal = goal_for(c, h, lblk);

	while (m->state == EC_MAP_HOLE && n) {
		blk64_t pblk, len;
		errcode_t err = ext2fs_new_range(c->fs, 0, goal, n, NULL, &pblk, &len);

		if (err)
			return ec_errno(c, err, ino, "allocate");
		if (len > n)
			len = n;
		ext2fs_block_alloc_stats_range(c->fs, pblk, len, +1);
		err = ext2fs_iblk_add_blocks(c->fs, (struct ext2_inode *)f->in, len);
		/* one block at a time: set_bmap grows the extent before it */
		for (blk64_t i = 0; !err && i < len; i++)
			err = ext2fs_extent_set_bmap(h, lblk + i, pblk + i, flags);
		if (err)
			return ec_errno(c, err, ino, "allocate");
		lblk += len;
		n -= len;
		goal = pblk + len;
	}
	return 0;
}

int ec_map_fill(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, blk64_t n,
		bool unwritten)
{
	ext2_extent_handle_t h;
	struct fill f = { in, unwritten };
	int rc;

	if (!has_tree(in))
		return ec_bmap_fill(c, ino, in, lblk, n);
	if (lblk + n < lblk || lblk + n > END_OF_BLOCKS)
		return EFBIG;
	rc = open_tree(c, ino, in, &h);
	if (rc)
		return rc;
	rc = for_runs(c, ino, h, lblk, n, fill_hole, &f);
	ext2fs_extent_free(h);
	if (!rc)
		rc = ec_write_inode(c, ino, in);
	return rc ? rc : ec_map_merge(c, ino, in, lblk, n);
}

/* Unwritten blocks become written, block by block: set_bmap splits the
 * unwritten extent and grows the written one before it. */
static int convert_run(struct ec_ctx *c, ext2_ino_t ino, ext2_extent_handle_t h,
		       const struct ec_map *m, void *arg)
{
	(void)arg;
	for (blk64_t i = 0; m->state == EC_MAP_UNWRITTEN && i < m->len; i++) {
		errcode_t err = ext2fs_extent_set_bmap(h, m->lblk + i, m->pblk + i, 0);

		if (err)
			return ec_errno(c, err, ino, "extent convert");
	}
	return 0;
}

int ec_map_convert(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, blk64_t n)
{
	ext2_extent_handle_t h;
	int rc;

	if (!has_tree(in))
		return 0;
	rc = open_tree(c, ino, in, &h);
	if (rc)
		return rc;
	rc = for_runs(c, ino, h, lblk, n, convert_run, NULL);
	ext2fs_extent_free(h);
	return rc ? rc : ec_map_merge(c, ino, in, lblk, n);
}

int ec_map_merge(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk, blk64_t n)
{
	blk64_t pos = lblk ? lblk - 1 : 0, end = lblk + n, next;
	ext2_extent_handle_t h;
	int rc;

	if (!has_tree(in))
		return 0;
	rc = open_tree(c, ino, in, &h);
	if (rc)
		return rc;
	/* pos never goes back, and every join removes an extent: this ends */
	while (!rc && pos <= end && pos < END_OF_BLOCKS) {
		rc = join_next(c, ino, h, pos, &next);
		pos = next;
	}
	ext2fs_extent_free(h);
	return rc;
}
