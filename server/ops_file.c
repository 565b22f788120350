/* server/ops_file.c: FUSE open, read, write, flush, release, fsync. */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

void ec_op_open(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	ec_inode in;
	int rc = ec_read_inode(c, ino, &in);

	if (!rc && (fi->flags & O_ACCMODE) != O_RDONLY && c->ro)
		rc = EROFS;
	if (!rc && (fi->flags & O_TRUNC) && LINUX_S_ISREG(in.i_mode) && ec_isize(&in)) {
		rc = ec_truncate(c, ino, 0);
		if (!rc)
			rc = ec_touch(c, ino, true);
	}
	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

void ec_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	uint64_t got = 0;
	char *buf;
	int rc;

	(void)fi;
	if (off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	buf = malloc(size ? size : 1);
	rc = buf ? ec_read_data(c, ec_ino(ino), buf, size, (uint64_t)off, &got) : ENOMEM;
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_buf(req, buf, got);
	free(buf);
}

void ec_op_write(fuse_req_t req, fuse_ino_t fino, const char *buf, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	ext2_ino_t ino = ec_ino(fino);
	int rc;

	(void)fi;
	EC_CHECK_RW(c, req);
	if (off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	rc = ec_write_data(c, ino, buf, size, (uint64_t)off);
	if (!rc)
		rc = ec_touch(c, ino, true);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_write(req, size);
}

void ec_op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino, (void)fi;
	fuse_reply_err(req, 0);
}

void ec_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino, (void)fi;
	fuse_reply_err(req, 0);
}

/* Writes all dirty metadata (superblock, descriptors, bitmaps) and syncs the device. */
void ec_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	errcode_t err = c->ro ? 0 : ext2fs_flush2(c->fs, 0);

	(void)datasync, (void)fi;
	fuse_reply_err(req, ec_errno(c, err, ec_ino(ino), "fsync"));
}
