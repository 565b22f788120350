/* server/ops_attr.c: FUSE lookup, forget, getattr, setattr, readlink, statfs. */
#include "acl.h"
#include "ops.h"

#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>

void ec_op_lookup(struct ec_req *req, uint64_t parent, const char *name)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct ec_entry e;
	ext2_ino_t ino;
	int rc = ec_dir_lookup(c, ec_ino(parent), name, &ino);

	if (!rc)
		rc = ec_make_entry(c, ino, &e);
	if (rc == ENOENT) {
		/* negative entry: cached by the kernel like a positive one */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = ec_attr_timeout();
		rc = 0;
	}
	if (rc)
		ec_reply_err(req, rc);
	else
		ec_reply_entry(req, &e);
}

static void forget_one(struct ec_ctx *c, uint64_t ino, uint64_t n)
{
	if (!ec_nodes_unref(&c->nodes, ec_ino(ino), n))
		ec_maybe_free(c, ec_ino(ino));
}

void ec_op_forget(struct ec_req *req, uint64_t ino, uint64_t nlookup)
{
	forget_one(ec_req_ctx(req), ino, nlookup);
	ec_reply_none(req);
}

void ec_op_getattr(struct ec_req *req, uint64_t ino)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct stat st;
	ec_inode in;
	int rc = ec_read_inode(c, ec_ino(ino), &in);

	if (rc) {
		ec_reply_err(req, rc);
		return;
	}
	ec_inode_stat(c, ec_ino(ino), &in, &st);
	ec_reply_attr(req, &st, ec_attr_flags(c, &in), ec_attr_timeout());
}

static void set_owner(ec_inode *in, const struct stat *attr, int to_set)
{
	if (to_set & EC_SET_ATTR_UID) {
		in->i_uid = (__u16)attr->st_uid;
		ext2fs_set_i_uid_high(*in, attr->st_uid >> 16);
	}
	if (to_set & EC_SET_ATTR_GID) {
		in->i_gid = (__u16)attr->st_gid;
		ext2fs_set_i_gid_high(*in, attr->st_gid >> 16);
	}
}

void ec_op_setattr(struct ec_req *req, uint64_t fino, struct stat *attr, int to_set,
		   struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	struct timespec now = ec_now();
	struct stat st;
	ec_inode in;
	int rc;

	(void)fi;
	EC_CHECK_RW(c, req);
	rc = ec_read_inode(c, ino, &in);
	if (!rc && (to_set & EC_SET_ATTR_SIZE)) {
		if (LINUX_S_ISDIR(in.i_mode))
			rc = EISDIR;
		else if (!LINUX_S_ISREG(in.i_mode))
			rc = EINVAL;
		else if (attr->st_size < 0)
			rc = EINVAL;
		else
			rc = ec_truncate(c, ino, (uint64_t)attr->st_size);
		if (!rc)
			rc = ec_read_inode(c, ino, &in);
		if (!rc && !(to_set & EC_SET_ATTR_MTIME))
			ec_set_time(&in, EC_MTIME, now);
	}
	if (rc) {
		ec_reply_err(req, rc);
		return;
	}
	if (to_set & EC_SET_ATTR_MODE)
		in.i_mode = (__u16)((in.i_mode & LINUX_S_IFMT) | (attr->st_mode & 07777));
	else if ((to_set & EC_SET_ATTR_KILL_SUIDGID) && !LINUX_S_ISDIR(in.i_mode))
		ec_kill_suidgid(&in);
	set_owner(&in, attr, to_set);
	if (to_set & EC_SET_ATTR_ATIME)
		ec_set_time(&in, EC_ATIME, (to_set & EC_SET_ATTR_ATIME_NOW) ? now : attr->st_atim);
	if (to_set & EC_SET_ATTR_MTIME)
		ec_set_time(&in, EC_MTIME, (to_set & EC_SET_ATTR_MTIME_NOW) ? now : attr->st_mtim);
	ec_set_time(&in, EC_CTIME, (to_set & EC_SET_ATTR_CTIME) ? attr->st_ctim : now);
	rc = ec_write_inode(c, ino, &in);
	if (!rc && (to_set & EC_SET_ATTR_MODE) && !LINUX_S_ISLNK(in.i_mode))
		rc = ec_acl_chmod(c, ino, in.i_mode);
	if (rc) {
		ec_reply_err(req, rc);
		return;
	}
	ec_inode_stat(c, ino, &in, &st);
	ec_reply_attr(req, &st, ec_attr_flags(c, &in), ec_attr_timeout());
}

void ec_op_readlink(struct ec_req *req, uint64_t fino)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	char buf[EXT2_MAX_BLOCK_SIZE + 1];
	ec_inode in;
	uint64_t size;
	int rc = ec_read_inode(c, ino, &in);

	if (!rc && !LINUX_S_ISLNK(in.i_mode))
		rc = EINVAL;
	size = rc ? 0 : ec_isize(&in);
	if (!rc && (size == 0 || size >= c->fs->blocksize))
		rc = ec_corrupt(c, ino, "symlink size out of range");
	if (!rc && ext2fs_is_fast_symlink((struct ext2_inode *)&in)) {
		if (size >= sizeof(in.i_block))
			rc = ec_corrupt(c, ino, "fast symlink too long");
		else
			memcpy(buf, in.i_block, size);
	} else if (!rc) {
		rc = ec_read_data(c, ino, buf, size, 0, &size);
		if (!rc && size != ec_isize(&in))
			rc = ec_corrupt(c, ino, "symlink shorter than its size");
	}
	if (rc) {
		ec_reply_err(req, rc);
		return;
	}
	buf[size] = 0;
	if (strlen(buf) != size) {
		ec_reply_err(req, ec_corrupt(c, ino, "NUL byte in symlink target"));
		return;
	}
	ec_reply_readlink(req, buf);
}

void ec_op_statfs(struct ec_req *req, uint64_t ino)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct ext2_super_block *sb = c->fs->super;
	blk64_t free = ext2fs_free_blocks_count(sb), resv = ext2fs_r_blocks_count(sb);
	struct statvfs st;
	uint64_t lo, hi;

	(void)ino;
	memset(&st, 0, sizeof(st));
	st.f_bsize = st.f_frsize = c->fs->blocksize;
	st.f_blocks = ext2fs_blocks_count(sb);
	st.f_bfree = free;
	st.f_bavail = free > resv ? free - resv : 0;
	st.f_files = sb->s_inodes_count;
	st.f_ffree = st.f_favail = sb->s_free_inodes_count;
	st.f_namemax = EXT2_NAME_LEN;
	memcpy(&lo, sb->s_uuid, 8);
	memcpy(&hi, sb->s_uuid + 8, 8);
	st.f_fsid = (unsigned long)(lo ^ hi);
	ec_reply_statfs(req, &st);
}
