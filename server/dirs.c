/* server/dirs.c: directory entry helpers on top of libext2fs (lookup, add,
 * retarget, remove, emptiness, parent link counts). */
#include "ops.h"

#include <errno.h>
#include <string.h>

static int check_dir(struct ec_ctx *c, ext2_ino_t dir, const char *name)
{
	ec_inode in;
	int rc;

	if (strlen(name) > EXT2_NAME_LEN)
		return ENAMETOOLONG;
	rc = ec_read_inode(c, dir, &in);
	if (!rc && !LINUX_S_ISDIR(in.i_mode))
		rc = ENOTDIR;
	return rc;
}

int ec_dir_lookup(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t *ino)
{
	errcode_t err;
	int rc = check_dir(c, dir, name);

	if (rc)
		return rc;
	err = ext2fs_lookup(c->fs, dir, name, (int)strlen(name), NULL, ino);
	if (err == EXT2_ET_FILE_NOT_FOUND)
		return ENOENT;
	if (err)
		return ec_errno(c, err, dir, "lookup");
	if (!ec_ino_valid(c, *ino))
		return ec_corrupt(c, dir, "directory entry with an invalid inode number");
	return 0;
}

static int file_type(__u16 mode)
{
	switch (mode & LINUX_S_IFMT) {
	case LINUX_S_IFREG: return EXT2_FT_REG_FILE;
	case LINUX_S_IFDIR: return EXT2_FT_DIR;
	case LINUX_S_IFLNK: return EXT2_FT_SYMLINK;
	case LINUX_S_IFCHR: return EXT2_FT_CHRDEV;
	case LINUX_S_IFBLK: return EXT2_FT_BLKDEV;
	case LINUX_S_IFIFO: return EXT2_FT_FIFO;
	case LINUX_S_IFSOCK: return EXT2_FT_SOCK;
	default: return EXT2_FT_UNKNOWN;
	}
}

/* Fast path of ec_dir_link: the new entry goes into the slack of the last
 * block of a linear (not indexed, not inline) directory, where libext2fs
 * would only arrive after reading every block. Returns 0 when done, -1 when
 * the slow path must do it, or an errno. */
static int link_append(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t ino,
		       __u16 mode)
{
	unsigned int bs = c->fs->blocksize, limit, off = 0, rec_len = 0, used, need;
	size_t len = strlen(name);
	struct ext2_dir_entry *d = NULL, *nd;
	blk64_t pblk = 0;
	ec_inode din;
	char *buf;
	int rc = ec_read_inode(c, dir, &din);

	if (rc)
		return rc;
	if ((din.i_flags & (EXT2_INDEX_FL | EXT4_INLINE_DATA_FL)) || !ec_isize(&din) ||
	    ec_isize(&din) % bs ||
	    ext2fs_bmap2(c->fs, dir, (struct ext2_inode *)&din, NULL, 0, ec_isize(&din) / bs - 1,
			 NULL, &pblk) || !pblk || !(buf = malloc(bs)))
		return -1;
	limit = ext2fs_has_feature_metadata_csum(c->fs->super) ? bs - sizeof(struct ext2_dir_entry_tail) : bs;
	rc = ext2fs_read_dir_block4(c->fs, pblk, buf, 0, dir) ? -1 : 0;
	while (!rc && off < limit) {
		d = (struct ext2_dir_entry *)(buf + off);
		if (ext2fs_get_rec_len(c->fs, d, &rec_len) || rec_len < 8 || rec_len % 4 ||
		    rec_len > limit - off)
			rc = -1;
		else
			off += rec_len;
	}
	need = EXT2_DIR_REC_LEN(len);
	used = d && d->inode ? EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(d)) : 0;
	if (!rc && (off != limit || !d || rec_len < used + need))
		rc = -1;
	if (!rc && used) {
		ext2fs_set_rec_len(c->fs, used, d);
		nd = (struct ext2_dir_entry *)((char *)d + used);
		ext2fs_set_rec_len(c->fs, rec_len - used, nd);
	} else {
		nd = d;
	}
	if (!rc) {
		nd->inode = ino;
		ext2fs_dirent_set_name_len(nd, (int)len);
		ext2fs_dirent_set_file_type(nd, ext2fs_has_feature_filetype(c->fs->super) ?
						file_type(mode) : EXT2_FT_UNKNOWN);
		memcpy(nd->name, name, len);
		errcode_t err = ext2fs_write_dir_block4(c->fs, pblk, buf, 0, dir);
		rc = err ? ec_errno(c, err, dir, "link") : 0;
	}
	free(buf);
	return rc;
}

int ec_dir_link(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t ino, __u16 mode)
{
	errcode_t err;
	int rc = link_append(c, dir, name, ino, mode);

	if (rc >= 0)
		return rc;
	err = ext2fs_link(c->fs, dir, name, ino, file_type(mode));

	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(c->fs, dir);
		if (!err)
			err = ext2fs_link(c->fs, dir, name, ino, file_type(mode));
	}
	return err ? ec_errno(c, err, dir, "link") : 0;
}

struct retarget {
	const char *name;
	size_t len;
	ext2_ino_t ino;
	int ft;
	bool done;
};

static int retarget_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset,
		       int blocksize, char *buf, void *priv)
{
	struct retarget *r = priv;

	(void)dir, (void)entry, (void)offset, (void)blocksize, (void)buf;
	if ((size_t)ext2fs_dirent_name_len(d) != r->len || memcmp(d->name, r->name, r->len))
		return 0;
	d->inode = r->ino;
	ext2fs_dirent_set_file_type(d, r->ft);
	r->done = true;
	return DIRENT_CHANGED | DIRENT_ABORT;
}

int ec_dir_retarget(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t ino, __u16 mode)
{
	struct retarget r = { name, strlen(name), ino, file_type(mode), false };
	errcode_t err;

	if (!ext2fs_has_feature_filetype(c->fs->super))
		r.ft = EXT2_FT_UNKNOWN;
	err = ext2fs_dir_iterate2(c->fs, dir, 0, NULL, retarget_cb, &r);
	if (err)
		return ec_errno(c, err, dir, "retarget");
	return r.done ? 0 : ec_corrupt(c, dir, "directory entry vanished");
}

struct remove {
	struct ec_ctx *c;
	const char *name;
	size_t len;
	struct ext2_dir_entry *prev;
	ext2_ino_t ino;
	ec_inode *in;
	int rc;
	bool done;
};

static int remove_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset,
		     int blocksize, char *buf, void *priv)
{
	struct remove *r = priv;
	struct ext2_dir_entry *prev = r->prev;
	unsigned int plen, dlen;

	(void)dir, (void)entry, (void)blocksize, (void)buf;
	r->prev = d;
	if (!d->inode || (size_t)ext2fs_dirent_name_len(d) != r->len || memcmp(d->name, r->name, r->len))
		return 0;
	r->done = true;
	r->ino = d->inode;
	if (!ec_ino_valid(r->c, r->ino))
		r->rc = ec_corrupt(r->c, dir, "directory entry with an invalid inode number");
	else
		r->rc = ec_read_inode(r->c, r->ino, r->in);
	if (!r->rc && LINUX_S_ISDIR(r->in->i_mode))
		r->rc = EISDIR;
	if (r->rc)
		return DIRENT_ABORT;
	if (offset && prev && !ext2fs_get_rec_len(r->c->fs, prev, &plen) &&
	    !ext2fs_get_rec_len(r->c->fs, d, &dlen))
		ext2fs_set_rec_len(r->c->fs, plen + dlen, prev);
	else
		d->inode = 0;
	return DIRENT_ABORT | DIRENT_CHANGED;
}

int ec_dir_remove_file(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t *ino,
		       ec_inode *in)
{
	struct remove r = { c, name, strlen(name), NULL, 0, in, 0, false };
	errcode_t err;
	int rc = check_dir(c, dir, name);

	if (rc)
		return rc;
	err = ext2fs_dir_iterate2(c->fs, dir, DIRENT_FLAG_INCLUDE_EMPTY, NULL, remove_cb, &r);
	if (err)
		return ec_errno(c, err, dir, "unlink");
	*ino = r.ino;
	return r.rc ? r.rc : r.done ? 0 : ENOENT;
}

int ec_dir_unlink(struct ec_ctx *c, ext2_ino_t dir, const char *name)
{
	errcode_t err = ext2fs_unlink(c->fs, dir, name, 0, 0);

	return err ? ec_errno(c, err, dir, "unlink") : 0;
}

static int empty_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset,
		    int blocksize, char *buf, void *priv)
{
	int len = ext2fs_dirent_name_len(d);

	/* by name: inline directories do not flag "." and ".." as such */
	(void)dir, (void)entry, (void)offset, (void)blocksize, (void)buf;
	if (!(len == 1 && d->name[0] == '.') && !(len == 2 && !memcmp(d->name, "..", 2))) {
		*(bool *)priv = false;
		return DIRENT_ABORT;
	}
	return 0;
}

int ec_dir_check_empty(struct ec_ctx *c, ext2_ino_t dir)
{
	bool empty = true;
	errcode_t err = ext2fs_dir_iterate2(c->fs, dir, 0, NULL, empty_cb, &empty);

	if (err)
		return ec_errno(c, err, dir, "check_empty");
	return empty ? 0 : ENOTEMPTY;
}

int ec_dir_nlink(struct ec_ctx *c, ext2_ino_t dir, int delta)
{
	ec_inode in;
	int rc = ec_read_inode(c, dir, &in);

	if (rc)
		return rc;
	if (delta > 0 && in.i_links_count >= EXT2_LINK_MAX - 1) {
		if (!ext2fs_has_feature_dir_nlink(c->fs->super))
			return EMLINK;
		in.i_links_count = 1;
	} else if (delta > 0 && in.i_links_count > 1) {
		in.i_links_count++;
	} else if (delta < 0 && in.i_links_count > 2) {
		in.i_links_count--;
	}
	return ec_write_inode(c, dir, &in);
}
