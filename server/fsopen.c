/* server/fsopen.c: opens the filesystem with libext2fs through the fd
 * io_manager, applies the feature policy and the journal rules, marks the
 * filesystem mounted; closes it cleanly at the end. */
#include "fsopen.h"
#include "fdio.h"
#include "jlog.h"
#include "features.h"
#include "journal.h"
#include "log.h"
#include "zone.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

static int refuse(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	snprintf(err, errlen, fmt, a, b);
	return -1;
}

/* Decides c->ro from options, device access mode, features and journal state;
 * replays the journal when needed (returns 1 then: the caller must reopen). */
static int policy(struct ec_ctx *c, int devfd, bool replayed, char *err, size_t errlen)
{
	struct ext2_super_block *sb = c->fs->super;
	char why[256];
	int fl = fcntl(devfd, F_GETFL);

	switch (ec_features_check(sb, why, sizeof(why))) {
	case EC_FEAT_REFUSE:
		return refuse(err, errlen, "%s: %s", c->devname, why);
	case EC_FEAT_RO:
		if (!c->ro)
			ec_log(EC_LOG_WARNING, "ext4cell-server: %s: %s; mounting read-only\n",
			       c->devname, why);
		c->ro = true;
		break;
	case EC_FEAT_RW:
		break;
	}
	if (ext2fs_has_feature_journal_needs_recovery(sb)) {
		if (c->opt.norecovery) {
			ec_log(EC_LOG_WARNING, "ext4cell-server: %s: journal not replayed (norecovery); "
			       "mounting read-only, recent changes are missing\n", c->devname);
			c->ro = true;
		} else if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
			return refuse(err, errlen, "%s: %s", c->devname,
				      "the journal needs recovery but the device is read-only "
				      "(use -o norecovery to mount without it)");
		} else if (replayed) {
			/* our replay emptied the journal; the caller clears the flag */
		} else if (ec_journal_replay(c->fs, why, sizeof(why))) {
			return refuse(err, errlen, "%s: journal replay failed: %s", c->devname, why);
		} else {
			return 1; /* replayed: what libext2fs read may be stale */
		}
	}
	if (c->opt.norecovery)
		c->ro = true;
	return 0;
}

/* The superblock's free counts are not kept exact by the kernel (nor
 * journaled): recompute them from the group descriptors, as the kernel does. */
static void recount(ext2_filsys fs)
{
	blk64_t blocks = 0;
	__u64 inodes = 0;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blocks += ext2fs_bg_free_blocks_count(fs, g);
		inodes += ext2fs_bg_free_inodes_count(fs, g);
	}
	if (blocks <= ext2fs_blocks_count(fs->super))
		ext2fs_free_blocks_count_set(fs->super, blocks);
	if (inodes <= fs->super->s_inodes_count)
		fs->super->s_free_inodes_count = (__u32)inodes;
}

/* A filesystem that claims more blocks than its device holds is refused, as
 * the kernel does: its last block must be readable (the sandbox cannot ask
 * the device for its size). Otherwise blocks past the device's end would be
 * allocated, and written where the device is an image file, growing it. */
static int check_size(struct ec_ctx *c, char *err, size_t errlen)
{
	blk64_t count = ext2fs_blocks_count(c->fs->super);
	char *buf = NULL;
	errcode_t e = ext2fs_get_mem(c->fs->blocksize, &buf);

	if (!e)
		e = count ? io_channel_read_blk64(c->fs->io, count - 1, 1, buf) : EXT2_ET_SHORT_READ;
	ext2fs_free_mem(&buf);
	if (!e)
		return 0;
	snprintf(err, errlen, "%s: block count %llu exceeds the size of the device (%s)",
		 c->devname, (unsigned long long)count, error_message(e));
	return -1;
}

/* A mount whose root cannot be used is refused, as the kernel does. */
static int check_root(struct ec_ctx *c, char *err, size_t errlen)
{
	struct ext2_inode in;
	errcode_t e = ext2fs_read_inode(c->fs, EXT2_ROOT_INO, &in);

	if (e || !LINUX_S_ISDIR(in.i_mode) || !in.i_links_count || !EXT2_I_SIZE(&in))
		return refuse(err, errlen, "%s: %s", c->devname, "corrupt root inode (run e2fsck)");
	return 0;
}

/* A freed block's cached copy is dropped unwritten: its contents are
 * garbage now, and writing them back would only cost a device write.
 * Journaled, it is not reused before the next commit (freed.h). */
static void freed_range(ext2_filsys fs, blk64_t blk, blk_t num, int inuse)
{
	struct ec_ctx *c = fs->priv_data;

	if (inuse >= 0)
		return;
	ec_fdio_discard(fs->io, blk, num);
	if (c && c->journaled)
		ec_freed_hold(&c->freed, fs, blk, num);
}

static void freed_block(ext2_filsys fs, blk64_t blk, int inuse)
{
	freed_range(fs, blk, 1, inuse);
}

static bool in_zone(void *arg, blk64_t blk)
{
	struct ec_ctx *c = arg;

	return blk < ext2fs_blocks_count(c->fs->super) && ext2fs_test_block_bitmap2(c->zone, blk);
}

/* journal=: prepares journaled writes where the image has a journal. The
 * mount's first flush then writes needs_recovery: from then on a crash is
 * replayed at the next mount (ours, e2fsck's or kernel ext4's). */
static int journal_open(struct ec_ctx *c, struct ec_jlog **jl, char *err, size_t errlen)
{
	char why[256];

	*jl = NULL;
	if (c->opt.journal == EC_JOURNAL_OFF)
		return 0;
	if (!ext2fs_has_feature_journal(c->fs->super))
		snprintf(why, sizeof(why), "the filesystem has no journal");
	else if (!ec_jlog_open(c->fs, jl, why, sizeof(why)))
		why[0] = 0;
	if (why[0] && c->opt.journal == EC_JOURNAL_ON)
		return refuse(err, errlen, "%s: journal=on, but %s", c->devname, why);
	if (why[0] && ext2fs_has_feature_journal(c->fs->super))
		ec_log(EC_LOG_WARNING, "ext4cell-server: %s: %s: writing without the journal\n",
		       c->devname, why);
	if (*jl) {
		ext2fs_set_feature_journal_needs_recovery(c->fs->super);
		c->fs->flags |= EXT2_FLAG_MASTER_SB_ONLY; /* backups stay as mke2fs wrote them */
	}
	return 0;
}

int ec_fs_open(struct ec_ctx *c, int devfd, char *err, size_t errlen)
{
	struct ec_jlog *jl = NULL;
	void (*old_block)(ext2_filsys, blk64_t, int);
	void (*old_range)(ext2_filsys, blk64_t, blk_t, int);
	char name[32];
	/* FORCE: libext2fs skips its own feature check; policy() names the feature */
	int fl = fcntl(devfd, F_GETFL), flags = EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP | EXT2_FLAG_FORCE;
	errcode_t e;
	int rc;
	bool recovered = false;

	if (fl < 0)
		return refuse(err, errlen, "%s: bad device fd: %s", c->devname, strerror(errno));
	if ((fl & O_ACCMODE) == O_RDONLY)
		c->ro = true;
	if ((fl & O_ACCMODE) != O_RDONLY)
		flags |= EXT2_FLAG_RW; /* rw at the I/O level; c->ro decides what we write */
	ec_fdio_name(devfd, c->dio_align, name, sizeof(name));
	for (;;) {
		e = ext2fs_open2(name, NULL, flags, 0, 0, ec_fdio_manager, &c->fs);
		if (e)
			return refuse(err, errlen, "%s: not a valid ext2/3/4 filesystem: %s", c->devname,
				      error_message(e));
		rc = check_size(c, err, errlen) ? -1 : policy(c, devfd, recovered, err, errlen);
		if (rc < 0)
			goto fail;
		if (rc == 0)
			break;
		/* after a replay: drop what was read, open again, clear the flag */
		ext2fs_free(c->fs);
		c->fs = NULL;
		recovered = true;
	}
	if (recovered) {
		ext2fs_clear_feature_journal_needs_recovery(c->fs->super);
		ext2fs_mark_super_dirty(c->fs);
	}
	e = ext2fs_check_desc(c->fs);
	if (!e && !c->ro)
		e = ext2fs_read_bitmaps(c->fs);
	if (e) {
		refuse(err, errlen, "%s: corrupt filesystem (run e2fsck): %s", c->devname,
		       error_message(e));
		goto fail;
	}
	if (check_root(c, err, errlen))
		goto fail;
	if (ec_zone_build(c)) {
		refuse(err, errlen, "%s: %s", c->devname, "cannot map the filesystem's metadata blocks");
		goto fail;
	}
	c->errors = c->opt.errors ? c->opt.errors : (enum ec_errors)c->fs->super->s_errors;
	if (c->errors < EC_ERRORS_CONTINUE || c->errors > EC_ERRORS_PANIC)
		c->errors = EC_ERRORS_CONTINUE;
	if (c->ro) {
		c->fs->flags &= ~EXT2_FLAG_RW;
		return 0;
	}
	c->fs->priv_data = c;
	ext2fs_set_block_alloc_stats_callback(c->fs, freed_block, &old_block);
	ext2fs_set_block_alloc_stats_range_callback(c->fs, freed_range, &old_range);
	recount(c->fs);
	c->fs->super->s_state &= ~EXT2_VALID_FS;
	c->fs->super->s_mnt_count++;
	c->fs->super->s_mtime = (__u32)time(NULL);
	ext2fs_mark_super_dirty(c->fs);
	if (journal_open(c, &jl, err, errlen))
		goto fail;
	if (jl && ec_fdio_journal_attach(c->fs->io, jl, c->fs->blocksize, in_zone, c)) {
		ec_jlog_free(jl);
		refuse(err, errlen, "%s: %s", c->devname, "out of memory for the journal");
		goto fail;
	}
	/* journaled, the superblock update is the first transaction: a crash
	 * never leaves it half written */
	c->journaled = jl != NULL;
	e = ec_fs_sync(c);
	if (e) {
		refuse(err, errlen, "%s: cannot write the superblock: %s", c->devname, error_message(e));
		goto fail;
	}
	return 0;
fail:
	c->journaled = false;
	ec_zone_free(c);
	c->fs->flags &= ~EXT2_FLAG_RW;
	ext2fs_close_free(&c->fs);
	return -1;
}

static void free_orphan(uint32_t ino, void *arg)
{
	ec_maybe_free(arg, ino);
}

errcode_t ec_fs_sync(struct ec_ctx *c)
{
	errcode_t e;

	/* libext2fs flushes the device before and after the superblock: with
	 * the journal that would split the change in two commits */
	if (!c->journaled)
		return ext2fs_flush2(c->fs, 0);
	ec_freed_release(&c->freed, c->fs);
	e = ext2fs_flush2(c->fs, EXT2_FLAG_FLUSH_NO_SYNC);
	return e ? e : io_channel_flush(c->fs->io);
}

/* The last transaction, with the clean superblock (no needs_recovery), is
 * committed and written home, then the journal is marked empty: a crash at
 * any point leaves a superblock that is whole. On a failure the flag stays
 * set at home: the next mount replays what the journal holds. */
static void close_journal(struct ec_ctx *c)
{
	errcode_t e;

	ext2fs_clear_feature_journal_needs_recovery(c->fs->super);
	e = ec_fs_sync(c);
	if (!e)
		e = ec_fdio_journal_detach(c->fs->io);
	c->journaled = false;
	if (e)
		ec_log(EC_LOG_ERR, "ext4cell-server: %s: closing the journal failed: %s; the "
		       "next mount replays it\n", c->devname, error_message(e));
}

int ec_fs_close(struct ec_ctx *c)
{
	errcode_t e;

	ec_nodes_drain(&c->nodes, free_orphan, c);
	ec_dcache_free(&c->dcache);
	if (!c->ro) {
		if (!(c->fs->super->s_state & EXT2_ERROR_FS))
			c->fs->super->s_state |= EXT2_VALID_FS;
		c->fs->super->s_wtime = (__u32)time(NULL);
		ext2fs_mark_super_dirty(c->fs);
		if (c->journaled)
			close_journal(c);
	} else {
		c->fs->flags &= ~EXT2_FLAG_RW;
	}
	ec_zone_free(c);
	ec_freed_free(&c->freed);
	e = ext2fs_close_free(&c->fs);
	if (e) {
		ec_log(EC_LOG_ERR, "ext4cell-server: %s: closing the filesystem failed: %s\n",
		       c->devname, error_message(e));
		return -1;
	}
	return 0;
}
