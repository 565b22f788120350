/* server/ops_rename.c: FUSE rename, with RENAME_NOREPLACE and RENAME_EXCHANGE. */
#include "ops.h"

#include <errno.h>
#include <linux/fs.h>

/* Upper bound on directory depth walked when checking for a loop. */
#define EC_MAX_DEPTH 65536

/* EINVAL when dir is ancestor itself or below it (a rename would cut a loop). */
static int check_not_inside(struct ec_ctx *c, ext2_ino_t dir, ext2_ino_t ancestor)
{
	ext2_ino_t cur = dir;
	int depth, rc;

	for (depth = 0; depth < EC_MAX_DEPTH; depth++) {
		if (cur == ancestor)
			return EINVAL;
		if (cur == EXT2_ROOT_INO)
			return 0;
		rc = ec_dir_lookup(c, cur, "..", &cur);
		if (rc)
			return rc == ENOENT ? ec_corrupt(c, cur, "directory without ..") : rc;
	}
	return ec_corrupt(c, dir, "directory tree too deep or looping");
}

struct side {
	ext2_ino_t dir, ino;
	const char *name;
	ec_inode in;
	bool isdir;
};

static int set_ctime(struct ec_ctx *c, struct side *s)
{
	ec_set_time(&s->in, EC_CTIME, ec_now());
	return ec_write_inode(c, s->ino, &s->in);
}

static int touch_dirs(struct ec_ctx *c, struct side *a, struct side *b)
{
	int rc = ec_touch(c, a->dir, true);

	return rc || a->dir == b->dir ? rc : ec_touch(c, b->dir, true);
}

/* A directory moving from one parent to another: its ".." and both link counts. */
static int move_dir(struct ec_ctx *c, ext2_ino_t ino, ext2_ino_t from, ext2_ino_t to)
{
	int rc = ec_dir_retarget(c, ino, "..", to, LINUX_S_IFDIR);

	if (!rc)
		rc = ec_dir_nlink(c, to, +1);
	if (!rc)
		rc = ec_dir_nlink(c, from, -1);
	return rc;
}

static int exchange(struct ec_ctx *c, struct side *s, struct side *d)
{
	int rc;

	if (s->dir != d->dir && s->isdir && (rc = check_not_inside(c, d->dir, s->ino)))
		return rc;
	if (s->dir != d->dir && d->isdir && (rc = check_not_inside(c, s->dir, d->ino)))
		return rc;
	rc = ec_dir_retarget(c, s->dir, s->name, d->ino, d->in.i_mode);
	if (!rc)
		rc = ec_dir_retarget(c, d->dir, d->name, s->ino, s->in.i_mode);
	if (!rc && s->dir != d->dir && s->isdir)
		rc = move_dir(c, s->ino, s->dir, d->dir);
	if (!rc && s->dir != d->dir && d->isdir)
		rc = move_dir(c, d->ino, d->dir, s->dir);
	if (!rc)
		rc = ec_touch(c, s->ino, false);
	if (!rc)
		rc = ec_touch(c, d->ino, false);
	return rc ? rc : touch_dirs(c, s, d);
}

static int rename_over(struct ec_ctx *c, struct side *s, struct side *d, bool exists)
{
	int rc;

	if (exists && s->isdir && !d->isdir)
		return ENOTDIR;
	if (exists && !s->isdir && d->isdir)
		return EISDIR;
	if (exists && d->isdir && (rc = ec_dir_check_empty(c, d->ino)))
		return rc;
	if (s->isdir && s->dir != d->dir && (rc = check_not_inside(c, d->dir, s->ino)))
		return rc;
	rc = exists ? ec_dir_retarget(c, d->dir, d->name, s->ino, s->in.i_mode)
		    : ec_dir_link(c, d->dir, d->name, s->ino, s->in.i_mode);
	if (!rc)
		rc = ec_dir_unlink(c, s->dir, s->name);
	if (!rc && exists) {
		if (d->isdir) {
			d->in.i_links_count = 0;
			rc = ec_dir_nlink(c, d->dir, -1);
		} else if (d->in.i_links_count) {
			d->in.i_links_count--;
		}
		if (!rc)
			rc = set_ctime(c, d);
	}
	if (!rc && s->isdir && s->dir != d->dir)
		rc = move_dir(c, s->ino, s->dir, d->dir);
	if (!rc)
		rc = ec_touch(c, s->ino, false); /* re-read: ".." may live in the inode */
	if (!rc)
		rc = touch_dirs(c, s, d);
	return rc || !exists ? rc : ec_maybe_free(c, d->ino);
}

static int do_rename(struct ec_ctx *c, struct side *s, struct side *d, unsigned int flags)
{
	bool exists;
	int rc;

	if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) ||
	    (flags & RENAME_NOREPLACE && flags & RENAME_EXCHANGE))
		return EINVAL;
	rc = ec_dir_lookup(c, s->dir, s->name, &s->ino);
	if (!rc)
		rc = ec_read_inode(c, s->ino, &s->in);
	if (rc)
		return rc;
	rc = ec_dir_lookup(c, d->dir, d->name, &d->ino);
	if (rc && rc != ENOENT)
		return rc;
	exists = rc == 0;
	if (exists && (rc = ec_read_inode(c, d->ino, &d->in)))
		return rc;
	s->isdir = LINUX_S_ISDIR(s->in.i_mode);
	d->isdir = exists && LINUX_S_ISDIR(d->in.i_mode);
	if (exists && flags & RENAME_NOREPLACE)
		return EEXIST;
	if (!exists && flags & RENAME_EXCHANGE)
		return ENOENT;
	if (exists && s->ino == d->ino)
		return 0;
	if (flags & RENAME_EXCHANGE)
		return exchange(c, s, d);
	return rename_over(c, s, d, exists);
}

void ec_op_rename(struct ec_req *req, uint64_t parent, const char *name, uint64_t newparent,
		  const char *newname, unsigned int flags)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct side s = { .dir = ec_ino(parent), .name = name };
	struct side d = { .dir = ec_ino(newparent), .name = newname };

	EC_CHECK_RW(c, req);
	ec_reply_err(req, do_rename(c, &s, &d, flags));
}
