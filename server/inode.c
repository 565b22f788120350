/* server/inode.c: reading, validating and writing inodes; timestamps with
 * nanoseconds (extra_isize aware); stat and FUSE entry conversion; freeing
 * inodes whose last link and last kernel reference are gone. */
#include "ctx.h"
#include "ops.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* An hour: the kernel is the only client of the filesystem and every change
 * goes through it, so it knows what each operation changed (it drops what it
 * cached of the inodes and directories involved, the block counts of iomap
 * files after every mapping request). Short timeouts only cost round trips:
 * with 1 s, a stat() of every file in a tree asked the server once per file. */
double ec_attr_timeout(void)
{
	return 3600.0;
}

bool ec_ino_valid(struct ec_ctx *c, ext2_ino_t ino)
{
	return ino == EXT2_ROOT_INO ||
	       (ino >= EXT2_FIRST_INO(c->fs->super) && ino <= c->fs->super->s_inodes_count);
}

static size_t inode_bytes(struct ec_ctx *c)
{
	size_t s = (size_t)EXT2_INODE_SIZE(c->fs->super);

	return s < sizeof(ec_inode) ? s : sizeof(ec_inode);
}

int ec_read_inode(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in)
{
	errcode_t err;
	unsigned int room = EXT2_INODE_SIZE(c->fs->super) - EXT2_GOOD_OLD_INODE_SIZE;

	if (!ec_ino_valid(c, ino))
		return ec_corrupt(c, ino, "inode number out of range");
	memset(in, 0, sizeof(*in));
	err = ext2fs_read_inode_full(c->fs, ino, (struct ext2_inode *)in, (int)inode_bytes(c));
	if (err)
		return ec_errno(c, err, ino, "read_inode");
	if (!room)
		in->i_extra_isize = 0;
	else if (in->i_extra_isize > room || (in->i_extra_isize & 3))
		return ec_corrupt(c, ino, "bad i_extra_isize");
	switch (in->i_mode & LINUX_S_IFMT) {
	case LINUX_S_IFREG: case LINUX_S_IFDIR: case LINUX_S_IFLNK: case LINUX_S_IFCHR:
	case LINUX_S_IFBLK: case LINUX_S_IFIFO: case LINUX_S_IFSOCK:
		break;
	default:
		return ec_corrupt(c, ino, "bad file type in i_mode");
	}
	if ((in->i_flags & EXT4_INLINE_DATA_FL) && !ext2fs_has_feature_inline_data(c->fs->super))
		return ec_corrupt(c, ino, "inline data flag without the inline_data feature");
	return 0;
}

int ec_write_inode(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in)
{
	errcode_t err = ext2fs_write_inode_full(c->fs, ino, (struct ext2_inode *)in,
						(int)inode_bytes(c));

	return err ? ec_errno(c, err, ino, "write_inode") : 0;
}

int ec_write_new_inode(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in)
{
	size_t size = (size_t)EXT2_INODE_SIZE(c->fs->super);
	char *buf = calloc(1, size);
	errcode_t err;

	if (!buf)
		return ENOMEM;
	memcpy(buf, in, inode_bytes(c));
	err = ext2fs_write_inode_full(c->fs, ino, (struct ext2_inode *)buf, (int)size);
	free(buf);
	return err ? ec_errno(c, err, ino, "write_new_inode") : 0;
}

uint64_t ec_isize(const ec_inode *in)
{
	return EXT2_I_SIZE(in);
}

struct timespec ec_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

/* Field locations per timestamp; extra is 0 when the inode has none. */
static void time_fields(ec_inode *in, enum ec_time which, __u32 **sec, __u32 **extra)
{
	static const size_t off[4][2] = {
		{ offsetof(ec_inode, i_atime), offsetof(ec_inode, i_atime_extra) },
		{ offsetof(ec_inode, i_mtime), offsetof(ec_inode, i_mtime_extra) },
		{ offsetof(ec_inode, i_ctime), offsetof(ec_inode, i_ctime_extra) },
		{ offsetof(ec_inode, i_crtime), offsetof(ec_inode, i_crtime_extra) },
	};
	size_t limit = EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize;

	*sec = off[which][0] + 4 <= limit ? (__u32 *)((char *)in + off[which][0]) : NULL;
	*extra = off[which][1] + 4 <= limit ? (__u32 *)((char *)in + off[which][1]) : NULL;
}

void ec_set_time(ec_inode *in, enum ec_time which, struct timespec ts)
{
	__u32 *sec, *extra;
	int64_t s = (int64_t)ts.tv_sec;

	time_fields(in, which, &sec, &extra);
	if (!sec)
		return;
	*sec = (__u32)(int32_t)s;
	if (extra)
		*extra = (__u32)(((s - (int32_t)s) >> 32) & EXT4_EPOCH_MASK) |
			 ((__u32)ts.tv_nsec << EXT4_EPOCH_BITS);
}

static struct timespec get_time(const ec_inode *in, enum ec_time which)
{
	__u32 *sec, *extra;
	struct timespec ts = { 0, 0 };

	time_fields((ec_inode *)in, which, &sec, &extra);
	if (!sec)
		return ts;
	ts.tv_sec = (int32_t)*sec;
	if (extra) {
		ts.tv_sec += (int64_t)(*extra & EXT4_EPOCH_MASK) << 32;
		ts.tv_nsec = (long)(*extra >> EXT4_EPOCH_BITS);
		if (ts.tv_nsec > 999999999)
			ts.tv_nsec = 999999999;
	}
	return ts;
}

bool ec_kill_suidgid(ec_inode *in)
{
	__u16 old = in->i_mode;

	in->i_mode &= (__u16)~LINUX_S_ISUID;
	if (in->i_mode & LINUX_S_IXGRP)
		in->i_mode &= (__u16)~LINUX_S_ISGID;
	return in->i_mode != old;
}

static int touch(struct ec_ctx *c, ext2_ino_t ino, bool mtime, bool kill_suidgid, bool *killed)
{
	ec_inode in;
	struct timespec now = ec_now();
	int rc = ec_read_inode(c, ino, &in);

	if (rc)
		return rc;
	if (kill_suidgid && ec_kill_suidgid(&in))
		*killed = true;
	if (mtime)
		ec_set_time(&in, EC_MTIME, now);
	ec_set_time(&in, EC_CTIME, now);
	return ec_write_inode(c, ino, &in);
}

int ec_touch(struct ec_ctx *c, ext2_ino_t ino, bool mtime)
{
	return touch(c, ino, mtime, false, NULL);
}

int ec_touch_modified(struct ec_ctx *c, ext2_ino_t ino, bool kill_suidgid, bool *killed)
{
	*killed = false;
	return touch(c, ino, true, kill_suidgid, killed);
}

void ec_inode_stat(struct ec_ctx *c, ext2_ino_t ino, const ec_inode *in, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = in->i_mode;
	st->st_nlink = in->i_links_count;
	st->st_uid = c->opt.has_uid ? c->opt.uid : inode_uid(*in);
	st->st_gid = c->opt.has_gid ? c->opt.gid : inode_gid(*in);
	st->st_size = (off_t)ec_isize(in);
	st->st_blksize = c->fs->blocksize;
	st->st_blocks = (blkcnt_t)ext2fs_get_stat_i_blocks(c->fs, (struct ext2_inode *)in);
	if (LINUX_S_ISCHR(in->i_mode) || LINUX_S_ISBLK(in->i_mode)) {
		__u32 old = in->i_block[0], nw = in->i_block[1];
		st->st_rdev = old ? makedev((old >> 8) & 0xff, old & 0xff)
				  : makedev((nw & 0xfff00) >> 8, (nw & 0xff) | ((nw >> 12) & 0xfff00));
	}
	st->st_atim = get_time(in, EC_ATIME);
	st->st_mtim = get_time(in, EC_MTIME);
	st->st_ctim = get_time(in, EC_CTIME);
}

int ec_make_entry(struct ec_ctx *c, ext2_ino_t ino, struct ec_entry *e)
{
	ec_inode in;
	int rc = ec_read_inode(c, ino, &in);

	if (rc)
		return rc;
	memset(e, 0, sizeof(*e));
	e->ino = ec_fuse_ino(ino);
	e->generation = in.i_generation;
	e->attr_timeout = e->entry_timeout = ec_attr_timeout();
	ec_inode_stat(c, ino, &in, &e->attr);
	e->attr_flags = ec_attr_flags(c, &in);
	return ec_nodes_ref(&c->nodes, ino);
}

void ec_init_owner(struct ec_req *req, const ec_inode *dir, ec_inode *in)
{
	uint32_t gid = req->gid;

	if (dir->i_mode & LINUX_S_ISGID) {
		gid = inode_gid(*dir);
		if (LINUX_S_ISDIR(in->i_mode))
			in->i_mode |= LINUX_S_ISGID;
	}
	in->i_uid = (__u16)req->uid;
	ext2fs_set_i_uid_high(*in, req->uid >> 16);
	in->i_gid = (__u16)gid;
	ext2fs_set_i_gid_high(*in, gid >> 16);
}

int ec_maybe_free(struct ec_ctx *c, ext2_ino_t ino)
{
	ec_inode in;
	errcode_t err;
	int rc;

	if (ec_nodes_count(&c->nodes, ino) || c->ro)
		return 0;
	rc = ec_read_inode(c, ino, &in);
	if (rc || in.i_links_count)
		return rc;
	ec_dcache_forget(&c->dcache, ino);	/* the number may become a new directory */
	if (ext2fs_inode_has_valid_blocks2(c->fs, (struct ext2_inode *)&in) ||
	    (in.i_flags & EXT4_INLINE_DATA_FL)) {
		err = ext2fs_punch(c->fs, ino, (struct ext2_inode *)&in, NULL, 0, ~0ULL);
		if (err)
			return ec_errno(c, err, ino, "free_inode: punch");
	}
	err = ext2fs_free_ext_attr(c->fs, ino, &in);
	if (err)
		return ec_errno(c, err, ino, "free_inode: xattrs");
	in.i_dtime = (__u32)time(NULL);
	rc = ec_write_inode(c, ino, &in);
	if (!rc)
		ext2fs_inode_alloc_stats2(c->fs, ino, -1, LINUX_S_ISDIR(in.i_mode));
	return rc;
}
