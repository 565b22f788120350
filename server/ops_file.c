/* server/ops_file.c: FUSE open, read, write, flush, release, fsync, destroy. */
#include "fsopen.h"
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

void ec_op_open(struct ec_req *req, uint64_t fino, struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	ec_inode in;
	bool killed;
	int rc = ec_read_inode(c, ino, &in);

	if (!rc && (fi->flags & O_ACCMODE) != O_RDONLY && c->ro)
		rc = EROFS;
	if (!rc && (fi->flags & O_TRUNC) && LINUX_S_ISREG(in.i_mode) &&
	    (ec_isize(&in) || fi->kill_suidgid)) {
		rc = ec_truncate(c, ino, 0);
		if (!rc)
			rc = ec_touch_modified(c, ino, fi->kill_suidgid, &killed);
		/* the kernel refreshes only size and times after O_TRUNC */
		if (!rc && killed)
			ec_notify_attr_changed(req, fino);
	}
	if (rc) {
		ec_reply_err(req, rc);
		return;
	}
	fi->keep_cache = 1;
	ec_reply_open(req, fi);
}

void ec_op_read(struct ec_req *req, uint64_t ino, size_t size, off_t off, struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	uint64_t got = 0;
	char *buf;
	int rc;

	(void)fi;
	if (off < 0) {
		ec_reply_err(req, EINVAL);
		return;
	}
	buf = malloc(size ? size : 1);
	rc = buf ? ec_read_data(c, ec_ino(ino), buf, size, (uint64_t)off, &got) : ENOMEM;
	if (rc)
		ec_reply_err(req, rc);
	else
		ec_reply_buf(req, buf, got);
	free(buf);
}

void ec_op_write(struct ec_req *req, uint64_t fino, const char *buf, size_t size, off_t off,
		 struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	bool killed;
	int rc;

	EC_CHECK_RW(c, req);
	if (off < 0) {
		ec_reply_err(req, EINVAL);
		return;
	}
	rc = ec_write_data(c, ino, buf, size, (uint64_t)off);
	if (!rc)
		rc = ec_touch_modified(c, ino, fi->kill_suidgid, &killed);
	/* the kernel refreshes only size and times after a write */
	if (!rc && killed)
		ec_notify_attr_changed(req, fino);
	if (rc)
		ec_reply_err(req, rc);
	else
		ec_reply_write(req, size);
}

/* A close. With the flush option, a close after a change writes everything
 * back and syncs the device, so what was closed survives the disk being
 * pulled out (FUSE never passes sync(2) and syncfs(2) on to its servers).
 * Journaled, the commit's home writes are synced too: the disk then needs
 * no replay to show the file, as readers that never replay a journal
 * (other systems' ext4 drivers, debugfs) see it. */
void ec_op_flush(struct ec_req *req, uint64_t ino, struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	errcode_t err = 0;

	(void)fi;
	if (c->opt.flush && c->unsynced && !c->ro) {
		err = ec_fs_sync(c);
		if (!err && c->journaled)
			err = io_channel_flush(c->fs->io);	/* nothing left to log */
		c->unsynced = err != 0;
	}
	ec_reply_err(req, ec_errno(c, err, ec_ino(ino), "flush"));
}

void ec_op_release(struct ec_req *req, uint64_t ino, struct ec_file *fi)
{
	(void)ino, (void)fi;
	ec_reply_err(req, 0);
}

/* Writes all dirty metadata (superblock, descriptors, bitmaps) and syncs the device. */
void ec_op_fsync(struct ec_req *req, uint64_t ino, int datasync, struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	errcode_t err = c->ro ? 0 : ec_fs_sync(c);

	(void)datasync, (void)fi;
	if (!err)
		c->unsynced = false;
	ec_reply_err(req, ec_errno(c, err, ec_ino(ino), "fsync"));
}

/* The kernel is done with the mount (its data is on the device): everything
 * the server holds goes there too before umount returns. */
void ec_op_destroy(struct ec_req *req)
{
	struct ec_ctx *c = ec_req_ctx(req);
	errcode_t err = c->ro ? 0 : ec_fs_sync(c);

	ec_reply_err(req, ec_errno(c, err, EXT2_ROOT_INO, "flush at unmount"));
}
