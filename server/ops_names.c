/* server/ops_names.c: FUSE handlers that add or remove names: mknod, mkdir,
 * symlink, create, link, unlink, rmdir. */
#include "acl.h"
#include "ops.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <ext2fs/ext3_extents.h>

/* Checks that parent is a directory; reads it into dir. The name is not
 * looked up again: the kernel creates only where its lookup found nothing
 * and holds the directory locked, and all changes go through this server. */
static int check_new_name(struct ec_ctx *c, ext2_ino_t parent, const char *name, ec_inode *dir)
{
	int rc = ec_read_inode(c, parent, dir);

	if (!rc && !LINUX_S_ISDIR(dir->i_mode))
		rc = ENOTDIR;
	if (!rc && strlen(name) > EXT2_NAME_LEN)
		rc = ENAMETOOLONG;
	return rc;
}

/* Fills a fresh in-memory inode: mode, owner, times, generation, extra_isize. */
static void init_inode(struct ec_ctx *c, struct ec_req *req, const ec_inode *dir, __u16 mode,
		       ec_inode *in)
{
	struct timespec now = ec_now();

	memset(in, 0, sizeof(*in));
	in->i_mode = mode;
	in->i_links_count = 1;
	if (EXT2_INODE_SIZE(c->fs->super) > EXT2_GOOD_OLD_INODE_SIZE)
		in->i_extra_isize = sizeof(ec_inode) - EXT2_GOOD_OLD_INODE_SIZE;
	ec_init_owner(req, dir, in);
	if (getrandom(&in->i_generation, sizeof(in->i_generation), 0) != sizeof(in->i_generation))
		in->i_generation = (__u32)now.tv_nsec;
	ec_set_time(in, EC_ATIME, now);
	ec_set_time(in, EC_MTIME, now);
	ec_set_time(in, EC_CTIME, now);
	ec_set_time(in, EC_CRTIME, now);
}

/* Writes an empty extent tree header into i_block. */
static void init_extents(ec_inode *in)
{
	struct ext3_extent_header *eh = (struct ext3_extent_header *)in->i_block;

	in->i_flags |= EXT4_EXTENTS_FL;
	eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
	eh->eh_entries = 0;
	eh->eh_max = ext2fs_cpu_to_le16((sizeof(in->i_block) - sizeof(*eh)) /
					sizeof(struct ext3_extent));
	eh->eh_depth = 0;
	eh->eh_generation = 0;
}

static void encode_rdev(ec_inode *in, dev_t rdev)
{
	unsigned int ma = major(rdev), mi = minor(rdev);

	if (ma < 256 && mi < 256)
		in->i_block[0] = ext2fs_cpu_to_le32((ma << 8) | mi);
	else
		in->i_block[1] = ext2fs_cpu_to_le32((mi & 0xff) | (ma << 8) | ((mi & ~0xffu) << 12));
}

/* Creates a non-directory, non-symlink inode named name in parent. */
static int make_node(struct ec_ctx *c, struct ec_req *req, ext2_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev, struct ec_entry *e)
{
	struct ec_acl_inherit ai;
	ec_inode dir, in;
	ext2_ino_t ino;
	errcode_t err;
	__u16 m = (__u16)mode;
	int rc = check_new_name(c, parent, name, &dir);

	if (!rc)
		rc = ec_acl_prepare(c, parent, &m, req->umask, &ai);
	if (rc)
		return rc;
	err = ext2fs_new_inode(c->fs, parent, (int)mode, NULL, &ino);
	if (err) {
		ec_acl_discard(&ai);
		return ec_errno(c, err, parent, "new_inode");
	}
	init_inode(c, req, &dir, m, &in);
	if (S_ISREG(mode) && ext2fs_has_feature_extents(c->fs->super))
		init_extents(&in);
	if (S_ISCHR(mode) || S_ISBLK(mode))
		encode_rdev(&in, rdev);
	rc = ec_write_new_inode(c, ino, &in);
	if (rc) {
		ec_acl_discard(&ai);
		return rc;
	}
	ext2fs_inode_alloc_stats2(c->fs, ino, +1, 0);
	rc = ec_dir_link(c, parent, name, ino, in.i_mode);
	if (rc) {
		ec_acl_discard(&ai);
		ext2fs_inode_alloc_stats2(c->fs, ino, -1, 0);
		return rc;
	}
	rc = ec_acl_apply(c, ino, false, &ai);
	if (!rc)
		rc = ec_touch(c, parent, true);
	return rc ? rc : ec_make_entry(c, ino, e);
}

void ec_op_mknod(struct ec_req *req, uint64_t parent, const char *name, mode_t mode, dev_t rdev)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct ec_entry e;
	int rc;

	EC_CHECK_RW(c, req);
	if (!S_ISREG(mode) && !S_ISCHR(mode) && !S_ISBLK(mode) && !S_ISFIFO(mode) && !S_ISSOCK(mode))
		rc = EINVAL;
	else
		rc = make_node(c, req, ec_ino(parent), name, mode, rdev, &e);
	if (rc)
		ec_reply_err(req, rc);
	else
		ec_reply_entry(req, &e);
}

void ec_op_create(struct ec_req *req, uint64_t parent, const char *name, mode_t mode,
		  struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct ec_entry e;
	int rc;

	EC_CHECK_RW(c, req);
	rc = make_node(c, req, ec_ino(parent), name, (mode & 07777) | S_IFREG, 0, &e);
	if (rc) {
		ec_reply_err(req, rc);
		return;
	}
	fi->keep_cache = 1;
	ec_reply_create(req, &e, fi);
}

/* libext2fs calls that create name in parent themselves; retried once
 * after growing parent when it is full. */
static errcode_t mkdir_call(struct ec_ctx *c, ext2_ino_t parent, ext2_ino_t ino,
			    const char *name, const char *target)
{
	errcode_t err = 0;
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		err = target ? ext2fs_symlink(c->fs, parent, ino, name, target)
			     : ext2fs_mkdir(c->fs, parent, ino, name);
		if (err != EXT2_ET_DIR_NO_SPACE || attempt)
			break;
		err = ext2fs_expand_dir(c->fs, parent);
		if (err)
			break;
	}
	if (err)
		ec_dcache_forget(&c->dcache, parent);	/* whatever it did, unseen */
	else
		ec_dir_added(c, parent, name, ino, EC_DCACHE_NOBLK);
	return err;
}

/* mkdir and symlink: libext2fs builds the inode, we set owner, mode and times. */
static int make_with_lib(struct ec_ctx *c, struct ec_req *req, ext2_ino_t parent, const char *name,
			 __u16 mode, const char *target, struct ec_entry *e)
{
	struct ec_acl_inherit ai = { NULL, 0, NULL, 0 };
	ec_inode dir, in, tmpl;
	ext2_ino_t ino;
	errcode_t err;
	int rc = check_new_name(c, parent, name, &dir);
	bool isdir = LINUX_S_ISDIR(mode);

	if (!rc && isdir && dir.i_links_count >= EXT2_LINK_MAX &&
	    !ext2fs_has_feature_dir_nlink(c->fs->super))
		rc = EMLINK;
	if (!rc && isdir)
		rc = ec_acl_prepare(c, parent, &mode, req->umask, &ai);
	if (rc)
		return rc;
	err = ext2fs_new_inode(c->fs, parent, mode, NULL, &ino);
	if (!err)
		err = mkdir_call(c, parent, ino, name, target);
	if (err) {
		ec_acl_discard(&ai);
		return ec_errno(c, err, parent, isdir ? "mkdir" : "symlink");
	}
	rc = ec_read_inode(c, ino, &in);
	if (rc) {
		ec_acl_discard(&ai);
		return rc;
	}
	init_inode(c, req, &dir, mode, &tmpl);
	in.i_mode = (__u16)((in.i_mode & LINUX_S_IFMT) | (tmpl.i_mode & 07777));
	in.i_uid = tmpl.i_uid;
	in.i_gid = tmpl.i_gid;
	in.osd2 = tmpl.osd2; /* i_generation stays: it seeds the block checksums */
	if (in.i_extra_isize < tmpl.i_extra_isize)
		in.i_extra_isize = tmpl.i_extra_isize;
	in.i_atime = tmpl.i_atime; in.i_atime_extra = tmpl.i_atime_extra;
	in.i_mtime = tmpl.i_mtime; in.i_mtime_extra = tmpl.i_mtime_extra;
	in.i_ctime = tmpl.i_ctime; in.i_ctime_extra = tmpl.i_ctime_extra;
	in.i_crtime = tmpl.i_crtime; in.i_crtime_extra = tmpl.i_crtime_extra;
	rc = ec_write_inode(c, ino, &in);
	if (!rc)
		rc = ec_acl_apply(c, ino, isdir, &ai);
	else
		ec_acl_discard(&ai);
	if (!rc && isdir && ext2fs_has_feature_dir_nlink(c->fs->super) &&
	    (dir.i_links_count == 1 || dir.i_links_count >= EXT2_LINK_MAX - 1)) {
		/* libext2fs incremented it blindly: keep the dir_nlink convention */
		rc = ec_read_inode(c, parent, &dir);
		dir.i_links_count = 1;
		if (!rc)
			rc = ec_write_inode(c, parent, &dir);
	}
	if (!rc)
		rc = ec_touch(c, parent, true);
	return rc ? rc : ec_make_entry(c, ino, e);
}

void ec_op_mkdir(struct ec_req *req, uint64_t parent, const char *name, mode_t mode)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct ec_entry e;
	int rc;

	EC_CHECK_RW(c, req);
	rc = make_with_lib(c, req, ec_ino(parent), name, (__u16)((mode & 07777) | LINUX_S_IFDIR),
			   NULL, &e);
	if (rc)
		ec_reply_err(req, rc);
	else
		ec_reply_entry(req, &e);
}

void ec_op_symlink(struct ec_req *req, const char *link, uint64_t parent, const char *name)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct ec_entry e;
	size_t len = strlen(link);
	int rc;

	EC_CHECK_RW(c, req);
	if (len == 0)
		rc = ENOENT;
	else if (len >= c->fs->blocksize)
		rc = ENAMETOOLONG;
	else
		rc = make_with_lib(c, req, ec_ino(parent), name, LINUX_S_IFLNK | 0777, link, &e);
	if (rc)
		ec_reply_err(req, rc);
	else
		ec_reply_entry(req, &e);
}

void ec_op_link(struct ec_req *req, uint64_t fino, uint64_t newparent, const char *newname)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino), parent = ec_ino(newparent);
	struct ec_entry e;
	ec_inode dir, in;
	int rc;

	EC_CHECK_RW(c, req);
	rc = check_new_name(c, parent, newname, &dir);
	if (!rc)
		rc = ec_read_inode(c, ino, &in);
	if (!rc && LINUX_S_ISDIR(in.i_mode))
		rc = EPERM;
	if (!rc && in.i_links_count >= EXT2_LINK_MAX)
		rc = EMLINK;
	if (!rc)
		rc = ec_dir_link(c, parent, newname, ino, in.i_mode);
	if (!rc) {
		in.i_links_count++;
		ec_set_time(&in, EC_CTIME, ec_now());
		rc = ec_write_inode(c, ino, &in);
	}
	if (!rc)
		rc = ec_touch(c, parent, true);
	if (!rc)
		rc = ec_make_entry(c, ino, &e);
	if (rc)
		ec_reply_err(req, rc);
	else
		ec_reply_entry(req, &e);
}

/* Removes name from parent and drops one link of its inode (all links of a
 * directory); frees the inode if nothing refers to it any more. */
static int remove_name(struct ec_ctx *c, ext2_ino_t parent, const char *name, bool want_dir)
{
	ext2_ino_t ino;
	ec_inode in;
	int rc;

	if (want_dir) {
		rc = ec_dir_lookup(c, parent, name, &ino);
		if (!rc)
			rc = ec_read_inode(c, ino, &in);
		if (!rc && !LINUX_S_ISDIR(in.i_mode))
			rc = ENOTDIR;
		if (!rc)
			rc = ec_dir_check_empty(c, ino);
		if (!rc)
			rc = ec_dir_unlink(c, parent, name);
	} else {
		rc = ec_dir_remove_file(c, parent, name, &ino, &in);
	}
	if (rc)
		return rc;
	if (want_dir)
		in.i_links_count = 0;
	else if (in.i_links_count)
		in.i_links_count--;
	ec_set_time(&in, EC_CTIME, ec_now());
	rc = ec_write_inode(c, ino, &in);
	if (!rc && want_dir)
		rc = ec_dir_nlink(c, parent, -1);
	if (!rc)
		rc = ec_touch(c, parent, true);
	return rc ? rc : ec_maybe_free(c, ino);
}

void ec_op_unlink(struct ec_req *req, uint64_t parent, const char *name)
{
	struct ec_ctx *c = ec_req_ctx(req);

	EC_CHECK_RW(c, req);
	ec_reply_err(req, remove_name(c, ec_ino(parent), name, false));
}

void ec_op_rmdir(struct ec_req *req, uint64_t parent, const char *name)
{
	struct ec_ctx *c = ec_req_ctx(req);

	EC_CHECK_RW(c, req);
	ec_reply_err(req, remove_name(c, ec_ino(parent), name, true));
}
