/* server/ops_xattr.c: FUSE extended attributes (user., trusted., security.,
 * system.posix_acl_*). libext2fs converts POSIX ACLs between the on-disk
 * and the xattr format. "system.data" (inline data) is never exposed. */
#include "acl.h"
#include "ops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/limits.h>
#include <sys/xattr.h>

static bool name_allowed(const char *name)
{
	static const char *const prefix[] = {
		"user.", "trusted.", "security.", NULL,
	};
	int i;

	if (!strcmp(name, "system.posix_acl_access") || !strcmp(name, "system.posix_acl_default"))
		return true;
	for (i = 0; prefix[i]; i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])) && name[strlen(prefix[i])])
			return true;
	return false;
}

/* ENODATA, with nothing open, on a filesystem that cannot have xattrs */
static int open_xattrs(struct ec_ctx *c, ext2_ino_t ino, struct ext2_xattr_handle **h)
{
	ec_inode in;
	errcode_t err;
	int rc = ec_read_inode(c, ino, &in);

	if (rc)
		return rc;
	if (!ec_fs_has_xattrs(c))
		return ENODATA;
	err = ext2fs_xattrs_open(c->fs, ino, h);
	if (!err) {
		err = ext2fs_xattrs_read(*h);
		if (err)
			ext2fs_xattrs_close(h);
	}
	return err ? ec_errno(c, err, ino, "xattrs_read") : 0;
}

static int close_xattrs(struct ec_ctx *c, ext2_ino_t ino, struct ext2_xattr_handle **h, int rc)
{
	errcode_t err = ext2fs_xattrs_close(h);

	return rc ? rc : ec_errno(c, err, ino, "xattrs_close");
}

/* For a change to NAME: open the inode's xattrs and say whether NAME is there.
 * 0 with *h open, or an errno with nothing left open. */
static int open_for_change(struct ec_ctx *c, ext2_ino_t ino, const char *name,
			   struct ext2_xattr_handle **h, bool *found)
{
	void *old = NULL;
	size_t oldlen;
	errcode_t err;
	int rc = open_xattrs(c, ino, h);

	if (rc)
		return rc;
	err = ext2fs_xattr_get(*h, name, &old, &oldlen);
	ext2fs_free_mem(&old);
	*found = !err;
	if (err && err != EXT2_ET_EA_KEY_NOT_FOUND)
		return close_xattrs(c, ino, h, ec_errno(c, err, ino, "xattr_get"));
	return 0;
}

/* Permission bits implied by a new access ACL, and the ctime of the change. */
static int set_mode(struct ec_ctx *c, ext2_ino_t ino, __u16 mode)
{
	ec_inode in;
	int rc = ec_read_inode(c, ino, &in);

	if (rc)
		return rc;
	in.i_mode = (__u16)((in.i_mode & ~0777) | (mode & 0777));
	ec_set_time(&in, EC_CTIME, ec_now());
	return ec_write_inode(c, ino, &in);
}

void ec_op_setxattr(struct ec_req *req, uint64_t fino, const char *name, const char *value,
		    size_t size, int flags)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	struct ext2_xattr_handle *h;
	errcode_t err;
	__u16 mode = 0;
	bool extended = true, found;
	int rc;

	EC_CHECK_RW(c, req);
	if (!name_allowed(name)) {
		ec_reply_err(req, EOPNOTSUPP);
		return;
	}
	if (strlen(name) > XATTR_NAME_MAX) {
		ec_reply_err(req, ERANGE);
		return;
	}
	if (!strcmp(name, EC_ACL_ACCESS) && (rc = ec_acl_to_mode(value, size, &mode, &extended))) {
		ec_reply_err(req, rc);
		return;
	}
	if (!ec_fs_has_xattrs(c)) {
		ec_reply_err(req, EOPNOTSUPP);
		return;
	}
	rc = open_for_change(c, ino, name, &h, &found);
	if (rc) {
		ec_reply_err(req, rc);
		return;
	}
	if (found && (flags & XATTR_CREATE))
		rc = EEXIST;
	else if (!found && (flags & XATTR_REPLACE))
		rc = ENODATA;
	else if (!strcmp(name, EC_ACL_ACCESS) && !extended)
		rc = found ? ec_errno(c, ext2fs_xattr_remove(h, name), ino, "xattr_remove") : 0;
	else if ((err = ext2fs_xattr_set(h, name, value, size)))
		rc = ec_errno(c, err, ino, "xattr_set");
	rc = close_xattrs(c, ino, &h, rc);
	if (!rc && !strcmp(name, EC_ACL_ACCESS))
		rc = set_mode(c, ino, mode);
	else if (!rc)
		rc = ec_touch(c, ino, false);
	ec_reply_err(req, rc);
}

void ec_op_getxattr(struct ec_req *req, uint64_t fino, const char *name, size_t size)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	struct ext2_xattr_handle *h;
	void *val = NULL;
	size_t len = 0;
	errcode_t err;
	int rc;

	if (!name_allowed(name)) {
		ec_reply_err(req, strncmp(name, "system.", 7) ? EOPNOTSUPP : ENODATA);
		return;
	}
	rc = open_xattrs(c, ino, &h);
	if (!rc) {
		err = ext2fs_xattr_get(h, name, &val, &len);
		rc = err == EXT2_ET_EA_KEY_NOT_FOUND ? ENODATA : ec_errno(c, err, ino, "xattr_get");
		rc = close_xattrs(c, ino, &h, rc);
	}
	if (!rc && size && len > size)
		rc = ERANGE;
	if (rc)
		ec_reply_err(req, rc);
	else if (!size)
		ec_reply_xattr(req, len);
	else
		ec_reply_buf(req, val, len);
	ext2fs_free_mem(&val);
}

struct names {
	char *buf;
	size_t len, cap;
	int err;
};

static int list_cb(char *name, char *value, size_t value_len, void *priv)
{
	struct names *n = priv;
	size_t l = strlen(name) + 1;

	(void)value, (void)value_len;
	if (!name_allowed(name))
		return 0;
	if (n->len + l > n->cap) {
		size_t cap = (n->cap + l) * 2;
		char *nb = realloc(n->buf, cap);
		if (!nb) {
			n->err = ENOMEM;
			return XATTR_ABORT;
		}
		n->buf = nb;
		n->cap = cap;
	}
	memcpy(n->buf + n->len, name, l);
	n->len += l;
	return 0;
}

void ec_op_listxattr(struct ec_req *req, uint64_t fino, size_t size)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	struct ext2_xattr_handle *h;
	struct names n = { NULL, 0, 0, 0 };
	int rc = open_xattrs(c, ino, &h);

	if (rc == ENODATA) {
		rc = 0;		/* none at all: the empty list */
	} else if (!rc) {
		errcode_t err = ext2fs_xattrs_iterate(h, list_cb, &n);
		rc = n.err ? n.err : ec_errno(c, err, ino, "xattrs_iterate");
		rc = close_xattrs(c, ino, &h, rc);
	}
	if (!rc && size && n.len > size)
		rc = ERANGE;
	if (rc)
		ec_reply_err(req, rc);
	else if (!size)
		ec_reply_xattr(req, n.len);
	else
		ec_reply_buf(req, n.buf, n.len);
	free(n.buf);
}

void ec_op_removexattr(struct ec_req *req, uint64_t fino, const char *name)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	struct ext2_xattr_handle *h;
	errcode_t err;
	bool found;
	int rc;

	EC_CHECK_RW(c, req);
	if (!name_allowed(name)) {
		ec_reply_err(req, EOPNOTSUPP);
		return;
	}
	rc = open_for_change(c, ino, name, &h, &found);
	if (rc) {
		ec_reply_err(req, rc);
		return;
	}
	if (!found)
		rc = ENODATA;
	else if ((err = ext2fs_xattr_remove(h, name)))
		rc = ec_errno(c, err, ino, "xattr_remove");
	rc = close_xattrs(c, ino, &h, rc);
	if (!rc)
		rc = ec_touch(c, ino, false);
	ec_reply_err(req, rc);
}
