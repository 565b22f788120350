/* server/session.c: the FUSE low-level operation table, INIT negotiation and
 * the single-threaded request loop (one request at a time, so libext2fs,
 * which is not thread-safe, is only ever entered by this thread). */
#include "session.h"
#include "log.h"
#include "ops.h"
#include "printable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EC_MAX_WRITE (1u << 20)

void ec_op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ec_ctx *c = userdata;

	conn->max_write = EC_MAX_WRITE;
	/* the kernel strips setuid/setgid bits itself, by explicit setattr */
	conn->want &= ~FUSE_CAP_HANDLE_KILLPRIV;
	/* ACLs enforced by the kernel; umask and inheritance are ours (acl.c) */
	if (!c->opt.fakeroot && (conn->capable & FUSE_CAP_POSIX_ACL) &&
	    (conn->capable & FUSE_CAP_DONT_MASK))
		conn->want |= FUSE_CAP_POSIX_ACL | FUSE_CAP_DONT_MASK;
	conn->time_gran = 1;
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* symlink targets never change in place: the kernel may keep them */
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
}

static const struct fuse_lowlevel_ops ops = {
	.init = ec_op_init,
	.lookup = ec_op_lookup,
	.forget = ec_op_forget,
	.forget_multi = ec_op_forget_multi,
	.getattr = ec_op_getattr,
	.setattr = ec_op_setattr,
	.readlink = ec_op_readlink,
	.mknod = ec_op_mknod,
	.mkdir = ec_op_mkdir,
	.unlink = ec_op_unlink,
	.rmdir = ec_op_rmdir,
	.symlink = ec_op_symlink,
	.rename = ec_op_rename,
	.link = ec_op_link,
	.open = ec_op_open,
	.read = ec_op_read,
	.write = ec_op_write,
	.flush = ec_op_flush,
	.release = ec_op_release,
	.fsync = ec_op_fsync,
	.fsyncdir = ec_op_fsync,
	.readdir = ec_op_readdir,
	.readdirplus = ec_op_readdirplus,
	.statfs = ec_op_statfs,
	.setxattr = ec_op_setxattr,
	.getxattr = ec_op_getxattr,
	.listxattr = ec_op_listxattr,
	.removexattr = ec_op_removexattr,
	.create = ec_op_create,
	.fallocate = ec_op_fallocate,
	.lseek = ec_op_lseek,
};

int ec_session_new(struct ec_ctx *c, const char *fsname)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	char *mopts, *name = ec_opt_escape(fsname);
	int rc;

	/* a comma in the name must not become an option of libfuse's */
	if (!name)
		return -1;
	rc = asprintf(&mopts, "fsname=%s,subtype=ext4%s%s%s%s", name,
		     c->opt.ro ? ",ro" : "",
		     c->opt.kernel || c->opt.allow_other ? ",allow_other" : "",
		     c->opt.fakeroot ? "" : ",default_permissions",
		     c->opt.debug ? ",debug" : "");
	free(name);
	if (rc < 0)
		return -1;
	rc = fuse_opt_add_arg(&args, "ext4cell-server") || fuse_opt_add_arg(&args, "-o") ||
	     fuse_opt_add_arg(&args, mopts);
	free(mopts);
	if (!rc)
		c->se = fuse_session_new(&args, &ops, sizeof(ops), c);
	fuse_opt_free_args(&args);
	return c->se ? 0 : -1;
}

int ec_session_loop(struct ec_ctx *c)
{
	struct fuse_buf buf;
	int rc = 0;

	memset(&buf, 0, sizeof(buf));
	while (!fuse_session_exited(c->se)) {
		int n = fuse_session_receive_buf(c->se, &buf);
		if (n == -EINTR || n == -EAGAIN)
			continue;
		if (n <= 0) {
			if (n < 0) {
				ec_log(EC_LOG_ERR, "ext4cell-server: %s: reading /dev/fuse: %s\n",
				       c->devname, strerror(-n));
				rc = -1;
			}
			break;
		}
		fuse_session_process_buf(c->se, &buf);
	}
	free(buf.mem);
	return rc;
}
