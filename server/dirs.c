/* server/dirs.c: directory entry helpers on top of libext2fs (lookup, add,
 * retarget, remove, emptiness, parent link counts). They keep the name
 * cache (dcache.h) current: a directory is read whole into it at its first
 * lookup; lookups answer from it and removals read only the block that
 * holds the name. */
#include "ops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int check_dir(struct ec_ctx *c, ext2_ino_t dir, const char *name, ec_inode *in)
{
	int rc;

	if (strlen(name) > EXT2_NAME_LEN)
		return ENAMETOOLONG;
	rc = ec_read_inode(c, dir, in);
	if (!rc && !LINUX_S_ISDIR(in->i_mode))
		rc = ENOTDIR;
	return rc;
}

static bool dot_or_dotdot(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && !memcmp(name, "..", 2));
}

/* Names the cache can hold: not "." and "..", of a directory made of
 * blocks whose names compare as bytes. */
static bool cacheable(const ec_inode *din, const char *name)
{
	return !dot_or_dotdot(name, strlen(name)) &&
	       !(din->i_flags & (EXT4_INLINE_DATA_FL | EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL));
}

/* Calls fn for each entry of a directory block (empty ones included) with
 * the entry before it in the block, until fn returns nonzero (its value);
 * -1 for a block whose entries do not tile it. */
typedef int (*entry_fn)(struct ext2_dir_entry *d, struct ext2_dir_entry *prev, unsigned int off,
			void *arg);
static int each_entry(struct ec_ctx *c, char *buf, entry_fn fn, void *arg)
{
	unsigned int bs = c->fs->blocksize, off = 0, rec_len;
	struct ext2_dir_entry *prev = NULL, *d;
	int rc;

	while (off < bs) {
		d = (struct ext2_dir_entry *)(buf + off);
		if (bs - off < 8 || ext2fs_get_rec_len(c->fs, d, &rec_len) || rec_len < 8 ||
		    rec_len % 4 || rec_len > bs - off ||
		    8u + (unsigned int)ext2fs_dirent_name_len(d) > rec_len)
			return -1;
		rc = fn(d, prev, off, arg);
		if (rc)
			return rc;
		prev = d;
		off += rec_len;
	}
	return 0;
}

struct load {
	struct ec_ctx *c;
	ext2_ino_t dir;
	blk64_t lblk;
	char *buf;
	bool failed;
};

static int load_entry(struct ext2_dir_entry *d, struct ext2_dir_entry *prev, unsigned int off,
		      void *arg)
{
	struct load *l = arg;
	size_t len = (size_t)ext2fs_dirent_name_len(d);
	ext2_ino_t ino;
	uint64_t lblk;

	(void)prev, (void)off;
	if (!d->inode || !len || dot_or_dotdot(d->name, len))
		return 0;
	/* a repeated name: lookups answer the first, as libext2fs does */
	if (ec_dcache_find(&l->c->dcache, l->dir, d->name, len, &ino, &lblk) == EC_DCACHE_FOUND)
		return 0;
	return ec_dcache_add(&l->c->dcache, l->dir, d->name, len, d->inode, l->lblk) ? 1 : 0;
}

static int load_block(ext2_filsys fs, blk64_t *pblk, e2_blkcnt_t cnt, blk64_t ref, int refoff,
		      void *arg)
{
	struct load *l = arg;

	(void)ref, (void)refoff;
	if (cnt < 0)
		return 0;
	l->lblk = (blk64_t)cnt;
	if (ext2fs_read_dir_block4(fs, *pblk, l->buf, 0, l->dir) ||
	    each_entry(l->c, l->buf, load_entry, l)) {
		l->failed = true;
		return BLOCK_ABORT;
	}
	return 0;
}

/* Reads dir whole into the cache; false (and nothing cached) when it could
 * not: libext2fs then answers, and reports what is wrong with it. */
static bool load(struct ec_ctx *c, ext2_ino_t dir)
{
	struct load l = { c, dir, 0, malloc(c->fs->blocksize), false };
	errcode_t err = l.buf ? 0 : EXT2_ET_NO_MEMORY;

	if (!err && !ec_dcache_start(&c->dcache, dir))
		err = ext2fs_block_iterate3(c->fs, dir, BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
					    NULL, load_block, &l);
	free(l.buf);
	if (!err && !l.failed && ec_dcache_has_dir(&c->dcache, dir))
		return true;
	ec_dcache_forget(&c->dcache, dir);
	return false;
}

/* The cache's answer for name in dir: 0 (found: *ino, *lblk), ENOENT, or
 * -1 when it has none. */
static int cached(struct ec_ctx *c, ext2_ino_t dir, const ec_inode *din, const char *name,
		  ext2_ino_t *ino, uint64_t *lblk)
{
	size_t len = strlen(name);

	if (!cacheable(din, name))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		switch (ec_dcache_find(&c->dcache, dir, name, len, ino, lblk)) {
		case EC_DCACHE_FOUND:
			return 0;
		case EC_DCACHE_ABSENT:
			return ENOENT;
		case EC_DCACHE_UNKNOWN:
			if (pass || !load(c, dir))
				return -1;
		}
	}
	return -1;
}

int ec_dir_lookup(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t *ino)
{
	errcode_t err = 0;
	uint64_t lblk;
	ec_inode din;
	int rc = check_dir(c, dir, name, &din);

	if (!rc)
		rc = cached(c, dir, &din, name, ino, &lblk);
	if (rc < 0) {
		err = ext2fs_lookup(c->fs, dir, name, (int)strlen(name), NULL, ino);
		rc = err == EXT2_ET_FILE_NOT_FOUND ? ENOENT : 0;
	}
	if (rc)
		return rc;
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
		       __u16 mode, uint64_t *lblk)
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
	    ext2fs_bmap2(c->fs, dir, (struct ext2_inode *)&din, NULL, 0,
			 (*lblk = ec_isize(&din) / bs - 1), NULL, &pblk) || !pblk ||
	    !(buf = malloc(bs)))
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

void ec_dir_added(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t ino,
		  uint64_t lblk)
{
	ec_dcache_add(&c->dcache, dir, name, strlen(name), ino, lblk);
}

int ec_dir_link(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t ino, __u16 mode)
{
	uint64_t lblk = EC_DCACHE_NOBLK;
	errcode_t err;
	int rc = link_append(c, dir, name, ino, mode, &lblk);

	if (rc >= 0) {
		if (!rc)
			ec_dir_added(c, dir, name, ino, lblk);
		return rc;
	}
	err = ext2fs_link(c->fs, dir, name, ino, file_type(mode));

	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(c->fs, dir);
		if (!err)
			err = ext2fs_link(c->fs, dir, name, ino, file_type(mode));
	}
	if (err) {
		ec_dcache_forget(&c->dcache, dir);	/* whatever it did, it did unseen */
		return ec_errno(c, err, dir, "link");
	}
	ec_dir_added(c, dir, name, ino, EC_DCACHE_NOBLK);
	return 0;
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
	if (!r.done)
		return ec_corrupt(c, dir, "directory entry vanished");
	ec_dcache_retarget(&c->dcache, dir, name, r.len, ino);
	return 0;
}

struct remove {
	struct ec_ctx *c;
	const char *name;
	size_t len;
	struct ext2_dir_entry *prev;
	ext2_ino_t ino;
	ec_inode *in;		/* NULL: any entry; else read it, refuse a directory */
	int rc;
	bool done;
};

static int remove_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset,
		     int blocksize, char *buf, void *priv)
{
	struct remove *r = priv;
	struct ext2_dir_entry *prev = r->prev;
	unsigned int plen, dlen;

	(void)entry, (void)blocksize, (void)buf;
	r->prev = d;
	if (!d->inode || (size_t)ext2fs_dirent_name_len(d) != r->len || memcmp(d->name, r->name, r->len))
		return 0;
	r->done = true;
	r->ino = d->inode;
	if (r->in && !ec_ino_valid(r->c, r->ino))
		r->rc = ec_corrupt(r->c, dir, "directory entry with an invalid inode number");
	else if (r->in)
		r->rc = ec_read_inode(r->c, r->ino, r->in);
	if (!r->rc && r->in && LINUX_S_ISDIR(r->in->i_mode))
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

struct remove_in_block {
	struct remove *r;
	ext2_ino_t dir;
};

static int remove_entry(struct ext2_dir_entry *d, struct ext2_dir_entry *prev, unsigned int off,
			void *arg)
{
	struct remove_in_block *b = arg;

	b->r->prev = prev;
	return remove_cb(b->dir, 0, d, (int)off, 0, NULL, b->r) & DIRENT_ABORT;
}

/* r's name from block lblk of dir, where the cache says it is: 0 when it
 * was removed, -1 when it is not there (the cache was wrong), or an errno. */
static int remove_at(struct ec_ctx *c, ext2_ino_t dir, ec_inode *din, uint64_t lblk,
		     struct remove *r)
{
	struct remove_in_block b = { r, dir };
	blk64_t pblk = 0;
	errcode_t err;
	char *buf = NULL;

	if (ext2fs_bmap2(c->fs, dir, (struct ext2_inode *)din, NULL, 0, lblk, NULL, &pblk) ||
	    !pblk || !(buf = malloc(c->fs->blocksize)))
		return -1;
	err = ext2fs_read_dir_block4(c->fs, pblk, buf, 0, dir);
	if (!err && each_entry(c, buf, remove_entry, &b) > 0 && r->done && !r->rc)
		err = ext2fs_write_dir_block4(c->fs, pblk, buf, 0, dir);
	free(buf);
	if (err)
		return ec_errno(c, err, dir, "unlink");
	return r->rc ? r->rc : r->done ? 0 : -1;
}

/* Removes r's name from dir: from the block the cache names, else by
 * walking the directory. */
static int remove_name(struct ec_ctx *c, ext2_ino_t dir, struct remove *r)
{
	ext2_ino_t ino;
	uint64_t lblk = EC_DCACHE_NOBLK;
	ec_inode din;
	errcode_t err;
	int rc = check_dir(c, dir, r->name, &din);

	if (!rc)
		rc = cached(c, dir, &din, r->name, &ino, &lblk);
	if (rc > 0)
		return rc;
	if (!rc && lblk != EC_DCACHE_NOBLK) {
		rc = remove_at(c, dir, &din, lblk, r);
		if (rc < 0)	/* not where the cache said: it is wrong */
			ec_dcache_forget(&c->dcache, dir);
	} else if (!rc) {
		rc = -1;	/* cached without its block: walk */
	}
	if (rc < 0) {
		r->done = false;
		r->rc = 0;
		err = ext2fs_dir_iterate2(c->fs, dir, DIRENT_FLAG_INCLUDE_EMPTY, NULL, remove_cb, r);
		if (err)
			return ec_errno(c, err, dir, "unlink");
		rc = r->rc ? r->rc : r->done ? 0 : ENOENT;
	}
	if (!rc)
		ec_dcache_remove(&c->dcache, dir, r->name, r->len);
	return rc;
}

int ec_dir_remove_file(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t *ino,
		       ec_inode *in)
{
	struct remove r = { c, name, strlen(name), NULL, 0, in, 0, false };
	int rc = remove_name(c, dir, &r);

	*ino = r.ino;
	return rc;
}

int ec_dir_unlink(struct ec_ctx *c, ext2_ino_t dir, const char *name)
{
	struct remove r = { c, name, strlen(name), NULL, 0, NULL, 0, false };

	return remove_name(c, dir, &r);
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
