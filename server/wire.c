/* server/wire.c: the server's own FUSE request loop and replies (wire.h), one
 * loop for classic and iomap mode. A request is read whole from /dev/fuse;
 * its header length, the size of its fixed arguments and every name in it
 * are checked against what was read before a handler sees them. One request
 * at a time: libext2fs is not thread-safe. */
#include "wire.h"
#include "fdio.h"
#include "fsopen.h"
#include "log.h"
#include "ops.h"
#include "../proto/fuse_iomap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#define EC_MAX_WRITE	(1u << 20)
#define EC_BUF_SIZE	(EC_MAX_WRITE + 64 * 1024)	/* a WRITE and its headers */

static volatile sig_atomic_t stop_asked, commit_asked;

void ec_wire_stop(void)
{
	stop_asked = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	commit_asked = 1;
}

int ec_wire_commit_timer(unsigned seconds)
{
	struct sigaction sa;
	struct itimerval it = { { seconds, 0 }, { seconds, 0 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: read() returns EINTR */
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL) ? -1 : 0;
}

/* Journaled writes: the running transaction commits when the timer asks
 * and something changed, or when it fills half the journal. */
static void maybe_commit(struct ec_ctx *c)
{
	errcode_t err;

	if (!c->journaled || c->ro || !c->fs)
		return;
	if (!(commit_asked && c->unsynced) && !ec_fdio_journal_due(c->fs->io))
		return;
	commit_asked = 0;
	err = ec_fs_sync(c);
	if (err)
		ec_log(EC_LOG_ERR, "ext4cell-server: %s: journal commit: %s\n", c->devname,
		       error_message(err));
	else
		c->unsynced = false;
}

/* Requests served, for the summary at the end (iomap mode: file data must
 * not show up as READ and WRITE; GETXATTR: what writes cost in privilege
 * checks; GETATTR: what metadata operations cost in attribute refreshes;
 * FLUSH: what closes cost). */
static struct {
	unsigned long long all, read, write, begin, ioend, getxattr, getattr, flush;
} served;

static void count(uint32_t op)
{
	served.all++;
	served.read += op == FUSE_READ;
	served.write += op == FUSE_WRITE;
	served.begin += op == FUSE_IOMAP_BEGIN_OP;
	served.ioend += op == FUSE_IOMAP_IOEND_OP;
	served.getxattr += op == FUSE_GETXATTR;
	served.getattr += op == FUSE_GETATTR;
	served.flush += op == FUSE_FLUSH;
}

/* Whether a request may change the filesystem (what the flush option syncs
 * at the next close): every metadata change, data written through FUSE, and
 * in iomap mode the mappings for writes and their completions. */
static bool changes(uint32_t op)
{
	switch (op) {
	case FUSE_SETATTR: case FUSE_SYMLINK: case FUSE_MKNOD: case FUSE_MKDIR:
	case FUSE_UNLINK: case FUSE_RMDIR: case FUSE_RENAME: case FUSE_RENAME2:
	case FUSE_LINK: case FUSE_CREATE: case FUSE_WRITE: case FUSE_SETXATTR:
	case FUSE_REMOVEXATTR: case FUSE_FALLOCATE: case FUSE_COPY_FILE_RANGE:
	case FUSE_IOMAP_BEGIN_OP: case FUSE_IOMAP_IOEND_OP:
		return true;
	default:
		return false;
	}
}

/* A request's payload after the header, consumed front to back. */
struct args {
	const char *p;
	size_t left;
};

/* The next n bytes of fixed arguments, or NULL when the request is short. */
static const void *take(struct args *a, size_t n)
{
	const void *p = a->p;

	if (a->left < n)
		return NULL;
	a->p += n;
	a->left -= n;
	return p;
}

/* The next NUL-terminated name, or NULL when the request has none. */
static const char *take_name(struct args *a)
{
	const char *end = memchr(a->p, 0, a->left);

	return end ? take(a, (size_t)(end - a->p) + 1) : NULL;
}

/* What the request changed goes to the device before the kernel hears
 * that it is done (and before it writes data into blocks the request
 * allocated or zeroed: a block-mapped file's new blocks are zeroed through
 * the cache). */
static int write_back(struct ec_ctx *c)
{
	errcode_t err = c->fs && c->fs->io ? ec_fdio_write_back(c->fs->io) : 0;

	if (!err)
		return 0;
	ec_log(EC_LOG_ERR, "ext4cell-server: %s: writing metadata: %s\n", c->devname,
	       error_message(err));
	return EIO;
}

static int send_reply(struct ec_req *r, int err, const struct iovec *data, int n)
{
	struct fuse_out_header oh = { .unique = r->unique };
	struct iovec iov[4] = { { &oh, sizeof(oh) } };
	size_t len = sizeof(oh);
	int werr = write_back(r->c);

	if (!err)
		err = werr;
	oh.error = -err;

	for (int i = 0; !err && i < n && i < 3; i++) {
		iov[i + 1] = data[i];
		len += data[i].iov_len;
	}
	oh.len = (uint32_t)len;
	if (writev(r->c->fuse_fd, iov, err ? 1 : n + 1) < 0) {
		/* ENOENT: the request was interrupted and is gone */
		if (errno != ENOENT)
			ec_log(EC_LOG_WARNING, "ext4cell-server: %s: replying to /dev/fuse: %s\n",
			       r->c->devname, strerror(errno));
		return -errno;
	}
	return 0;
}

static int reply_data(struct ec_req *r, const void *p, size_t n)
{
	struct iovec iov = { (void *)p, n };

	return send_reply(r, 0, &iov, 1);
}

void ec_notify_attr_changed(struct ec_req *r, uint64_t node)
{
	struct fuse_notify_inval_inode_out n = { .ino = node, .off = -1 };
	struct fuse_out_header oh = { sizeof(oh) + sizeof(n), FUSE_NOTIFY_INVAL_INODE, 0 };
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { &n, sizeof(n) } };

	/* ENOENT: the kernel has forgotten the inode, nothing is cached */
	if (writev(r->c->fuse_fd, iov, 2) < 0 && errno != ENOENT)
		ec_log(EC_LOG_WARNING, "ext4cell-server: %s: attribute notification: %s\n",
		       r->c->devname, strerror(errno));
}

int ec_reply_err(struct ec_req *r, int err)
{
	return send_reply(r, err, NULL, 0);
}

void ec_reply_none(struct ec_req *r)
{
	write_back(r->c);
}

static uint64_t timeout_sec(double t)
{
	return t <= 0 ? 0 : t >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

static uint32_t timeout_nsec(double t)
{
	return t <= 0 || t >= (double)UINT64_MAX ? 0 : (uint32_t)((t - (double)(uint64_t)t) * 1e9);
}

static void fill_attr(struct fuse_attr *a, const struct stat *st, uint32_t flags)
{
	memset(a, 0, sizeof(*a));
	a->ino = st->st_ino;
	a->mode = st->st_mode;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = (uint32_t)st->st_rdev;
	a->size = (uint64_t)st->st_size;
	a->blocks = (uint64_t)st->st_blocks;
	a->blksize = (uint32_t)st->st_blksize;
	a->atime = (uint64_t)st->st_atim.tv_sec;
	a->atimensec = (uint32_t)st->st_atim.tv_nsec;
	a->mtime = (uint64_t)st->st_mtim.tv_sec;
	a->mtimensec = (uint32_t)st->st_mtim.tv_nsec;
	a->ctime = (uint64_t)st->st_ctim.tv_sec;
	a->ctimensec = (uint32_t)st->st_ctim.tv_nsec;
	a->flags = flags;
}

static void fill_entry(struct fuse_entry_out *o, const struct ec_entry *e)
{
	memset(o, 0, sizeof(*o));
	o->nodeid = e->ino;
	o->generation = e->generation;
	o->entry_valid = timeout_sec(e->entry_timeout);
	o->entry_valid_nsec = timeout_nsec(e->entry_timeout);
	o->attr_valid = timeout_sec(e->attr_timeout);
	o->attr_valid_nsec = timeout_nsec(e->attr_timeout);
	fill_attr(&o->attr, &e->attr, e->attr_flags);
}

int ec_reply_entry(struct ec_req *r, const struct ec_entry *e)
{
	struct fuse_entry_out o;

	fill_entry(&o, e);
	return reply_data(r, &o, sizeof(o));
}

static void fill_open(struct fuse_open_out *o, const struct ec_file *f, const struct ec_ctx *c)
{
	memset(o, 0, sizeof(*o));
	o->fh = f->fh;
	o->open_flags = (f->keep_cache ? FOPEN_KEEP_CACHE : 0) | (f->direct_io ? FOPEN_DIRECT_IO : 0);
	/* FLUSH would do nothing (writes reach the filesystem as they come),
	 * but with the flush option at the close of a file open for writing */
	if (!c->opt.flush || (f->flags & O_ACCMODE) == O_RDONLY)
		o->open_flags |= FOPEN_NOFLUSH;
}

int ec_reply_create(struct ec_req *r, const struct ec_entry *e, const struct ec_file *f)
{
	struct {
		struct fuse_entry_out e;
		struct fuse_open_out o;
	} out;

	fill_entry(&out.e, e);
	fill_open(&out.o, f, r->c);
	return reply_data(r, &out, sizeof(out));
}

int ec_reply_attr(struct ec_req *r, const struct stat *st, uint32_t flags, double timeout)
{
	struct fuse_attr_out o = { .attr_valid = timeout_sec(timeout),
				   .attr_valid_nsec = timeout_nsec(timeout) };

	fill_attr(&o.attr, st, flags);
	return reply_data(r, &o, sizeof(o));
}

int ec_reply_open(struct ec_req *r, const struct ec_file *f)
{
	struct fuse_open_out o;

	fill_open(&o, f, r->c);
	return reply_data(r, &o, sizeof(o));
}

int ec_reply_buf(struct ec_req *r, const void *buf, size_t size)
{
	return reply_data(r, buf, size);
}

int ec_reply_readlink(struct ec_req *r, const char *target)
{
	return reply_data(r, target, strlen(target));
}

int ec_reply_write(struct ec_req *r, size_t count)
{
	struct fuse_write_out o = { .size = (uint32_t)count };

	return reply_data(r, &o, sizeof(o));
}

int ec_reply_statfs(struct ec_req *r, const struct statvfs *st)
{
	struct fuse_statfs_out o;

	memset(&o, 0, sizeof(o));
	o.st.blocks = st->f_blocks;
	o.st.bfree = st->f_bfree;
	o.st.bavail = st->f_bavail;
	o.st.files = st->f_files;
	o.st.ffree = st->f_ffree;
	o.st.bsize = (uint32_t)st->f_bsize;
	o.st.namelen = (uint32_t)st->f_namemax;
	o.st.frsize = (uint32_t)st->f_frsize;
	return reply_data(r, &o, sizeof(o));
}

int ec_reply_xattr(struct ec_req *r, size_t size)
{
	struct fuse_getxattr_out o = { .size = (uint32_t)size };

	return reply_data(r, &o, sizeof(o));
}

int ec_reply_lseek(struct ec_req *r, uint64_t off)
{
	struct fuse_lseek_out o = { .offset = off };

	return reply_data(r, &o, sizeof(o));
}

static void fill_dirent(struct fuse_dirent *d, const char *name, size_t namelen, uint64_t ino,
			mode_t mode, uint64_t off, size_t size)
{
	d->ino = ino;
	d->off = off;
	d->namelen = (uint32_t)namelen;
	d->type = (mode & S_IFMT) >> 12;
	memcpy(d->name, name, namelen);
	memset(d->name + namelen, 0, size - FUSE_NAME_OFFSET - namelen);
}

size_t ec_add_direntry(struct ec_req *r, char *buf, size_t bufsize, const char *name,
		       const struct stat *st, uint64_t off)
{
	size_t namelen = strlen(name), size = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);

	(void)r;
	if (buf && size <= bufsize)
		fill_dirent((struct fuse_dirent *)buf, name, namelen, st->st_ino, st->st_mode, off,
			    size);
	return size;
}

size_t ec_add_direntry_plus(struct ec_req *r, char *buf, size_t bufsize, const char *name,
			    const struct ec_entry *e, uint64_t off)
{
	size_t namelen = strlen(name);
	size_t size = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET_DIRENTPLUS + namelen);

	(void)r;
	if (buf && size <= bufsize) {
		struct fuse_direntplus *d = (struct fuse_direntplus *)buf;

		fill_entry(&d->entry_out, e);
		fill_dirent(&d->dirent, name, namelen, e->attr.st_ino, e->attr.st_mode, off,
			    size - offsetof(struct fuse_direntplus, dirent));
	}
	return size;
}

/* FUSE_INIT: what the server asks of the kernel (of what it offers). */
static void do_init(struct ec_req *r, struct args *a)
{
	const struct fuse_init_in *in = take(a, offsetof(struct fuse_init_in, flags2));
	struct ec_ctx *c = r->c;
	struct fuse_init_out o;
	uint64_t offered, want;

	if (!in)
		return (void)ec_reply_err(r, EINVAL);
	memset(&o, 0, sizeof(o));
	o.major = FUSE_KERNEL_VERSION;
	o.minor = FUSE_KERNEL_MINOR_VERSION;
	if (in->major > FUSE_KERNEL_VERSION)
		return (void)reply_data(r, &o, sizeof(o)); /* the kernel retries with 7 */
	if (in->major < FUSE_KERNEL_VERSION || in->minor < 23) {
		ec_log(EC_LOG_ERR, "ext4cell-server: %s: kernel FUSE protocol %u.%u is too old\n",
		       c->devname, in->major, in->minor);
		c->exiting = true;
		return (void)ec_reply_err(r, EPROTO);
	}
	offered = in->flags;
	if ((offered & FUSE_INIT_EXT) && a->left >= sizeof(in->flags2))
		offered |= (uint64_t)in->flags2 << 32;
	want = FUSE_ASYNC_READ | FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES | FUSE_MAX_PAGES |
	       FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO | FUSE_AUTO_INVAL_DATA |
	       FUSE_ASYNC_DIO | FUSE_CACHE_SYMLINKS | FUSE_INIT_EXT;
	/* ACLs enforced by the kernel; umask and inheritance are ours (acl.c) */
	if (!c->opt.fakeroot && (offered & FUSE_POSIX_ACL) && (offered & FUSE_DONT_MASK))
		want |= FUSE_POSIX_ACL | FUSE_DONT_MASK;
	/* We drop setuid/setgid where the kernel says (ec_kill_suidgid); the
	 * kernel still removes security.capability itself, and with SB_NOSEC
	 * it remembers which files have none, so writes stop costing a
	 * FUSE_GETXATTR each. (iomap mode: the kernel turns this off again.) */
	want |= FUSE_HANDLE_KILLPRIV_V2;
	want &= offered;
	o.minor = in->minor < FUSE_KERNEL_MINOR_VERSION ? in->minor : FUSE_KERNEL_MINOR_VERSION;
	/* iomap mode when the kernel offers it and the server may use it */
	ec_iomap_init(c, offered, &want, &o.minor);
	o.flags = (uint32_t)want;
	o.flags2 = (uint32_t)(want >> 32);
	o.max_readahead = in->max_readahead;
	o.max_write = EC_MAX_WRITE;
	o.max_pages = EC_MAX_WRITE / 4096;
	o.max_background = 16;
	o.congestion_threshold = 12;
	o.time_gran = 1;
	if (reply_data(r, &o, sizeof(o)) || (c->iomap && ec_iomap_start(c)))
		c->exiting = true;
	c->initialized = true;
}

static void do_destroy(struct ec_req *r)
{
	ec_op_destroy(r);
	r->c->exiting = true;
}

static void fill_setattr(const struct fuse_setattr_in *in, struct stat *st, struct ec_file *f)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = in->mode;
	st->st_uid = in->uid;
	st->st_gid = in->gid;
	st->st_size = (off_t)in->size;
	st->st_atim.tv_sec = (time_t)in->atime;
	st->st_atim.tv_nsec = in->atimensec;
	st->st_mtim.tv_sec = (time_t)in->mtime;
	st->st_mtim.tv_nsec = in->mtimensec;
	st->st_ctim.tv_sec = (time_t)in->ctime;
	st->st_ctim.tv_nsec = in->ctimensec;
	f->fh = in->fh;
}

#define SET_ATTR_KNOWN (EC_SET_ATTR_MODE | EC_SET_ATTR_UID | EC_SET_ATTR_GID | EC_SET_ATTR_SIZE | \
			EC_SET_ATTR_ATIME | EC_SET_ATTR_MTIME | EC_SET_ATTR_ATIME_NOW | \
			EC_SET_ATTR_MTIME_NOW | EC_SET_ATTR_CTIME | EC_SET_ATTR_KILL_SUIDGID)

/* The requests with names: LOOKUP, MKNOD, MKDIR, SYMLINK, UNLINK, RMDIR,
 * RENAME(2), LINK, CREATE and the xattr ones. Returns false when the request
 * is malformed (the caller answers EINVAL). */
static bool dispatch_named(struct ec_req *r, uint32_t op, uint64_t node, struct args *a)
{
	const char *name, *name2;
	const void *in;

	switch (op) {
	case FUSE_LOOKUP:
		if (!(name = take_name(a)))
			return false;
		ec_op_lookup(r, node, name);
		return true;
	case FUSE_UNLINK:
	case FUSE_RMDIR:
		if (!(name = take_name(a)))
			return false;
		(op == FUSE_UNLINK ? ec_op_unlink : ec_op_rmdir)(r, node, name);
		return true;
	case FUSE_MKNOD: {
		const struct fuse_mknod_in *m = take(a, sizeof(*m));

		if (!m || !(name = take_name(a)))
			return false;
		r->umask = m->umask;
		ec_op_mknod(r, node, name, m->mode, m->rdev);
		return true;
	}
	case FUSE_MKDIR: {
		const struct fuse_mkdir_in *m = take(a, sizeof(*m));

		if (!m || !(name = take_name(a)))
			return false;
		r->umask = m->umask;
		ec_op_mkdir(r, node, name, m->mode);
		return true;
	}
	case FUSE_SYMLINK:
		if (!(name = take_name(a)) || !(name2 = take_name(a)))
			return false;
		ec_op_symlink(r, name2, node, name);
		return true;
	case FUSE_RENAME:
	case FUSE_RENAME2: {
		uint64_t newdir;
		uint32_t flags = 0;

		if (op == FUSE_RENAME) {
			const struct fuse_rename_in *m = take(a, sizeof(*m));

			if (!m)
				return false;
			newdir = m->newdir;
		} else {
			const struct fuse_rename2_in *m = take(a, sizeof(*m));

			if (!m)
				return false;
			newdir = m->newdir;
			flags = m->flags;
		}
		if (!(name = take_name(a)) || !(name2 = take_name(a)))
			return false;
		ec_op_rename(r, node, name, newdir, name2, flags);
		return true;
	}
	case FUSE_LINK: {
		const struct fuse_link_in *m = take(a, sizeof(*m));

		if (!m || !(name = take_name(a)))
			return false;
		ec_op_link(r, m->oldnodeid, node, name);
		return true;
	}
	case FUSE_CREATE: {
		const struct fuse_create_in *m = take(a, sizeof(*m));
		struct ec_file f = { 0 };

		if (!m || !(name = take_name(a)))
			return false;
		r->umask = m->umask;
		f.flags = m->flags;
		ec_op_create(r, node, name, m->mode, &f);
		return true;
	}
	case FUSE_SETXATTR: {
		/* FUSE_SETXATTR_EXT is not negotiated: the short form */
		const struct fuse_setxattr_in *m = take(a, FUSE_COMPAT_SETXATTR_IN_SIZE);

		if (!m || !(name = take_name(a)) || !(in = take(a, m->size)))
			return false;
		ec_op_setxattr(r, node, name, in, m->size, (int)m->flags);
		return true;
	}
	case FUSE_GETXATTR: {
		const struct fuse_getxattr_in *m = take(a, sizeof(*m));

		if (!m || !(name = take_name(a)))
			return false;
		ec_op_getxattr(r, node, name, m->size);
		return true;
	}
	case FUSE_REMOVEXATTR:
		if (!(name = take_name(a)))
			return false;
		ec_op_removexattr(r, node, name);
		return true;
	}
	ec_reply_err(r, ENOSYS);
	return true;
}

/* The requests on files and directories without names. */
static bool dispatch_node(struct ec_req *r, uint32_t op, uint64_t node, struct args *a)
{
	struct ec_file f = { 0 };

	switch (op) {
	case FUSE_GETATTR: {
		const struct fuse_getattr_in *m = take(a, sizeof(*m));

		if (!m)
			return false;
		ec_op_getattr(r, node);
		return true;
	}
	case FUSE_SETATTR: {
		const struct fuse_setattr_in *m = take(a, sizeof(*m));
		struct stat st;

		if (!m)
			return false;
		fill_setattr(m, &st, &f);
		ec_op_setattr(r, node, &st, (int)(m->valid & SET_ATTR_KNOWN),
			      (m->valid & FATTR_FH) ? &f : NULL);
		return true;
	}
	case FUSE_READLINK:
		ec_op_readlink(r, node);
		return true;
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		const struct fuse_open_in *m = take(a, sizeof(*m));

		if (!m)
			return false;
		f.flags = m->flags;
		f.kill_suidgid = m->open_flags & FUSE_OPEN_KILL_SUIDGID;
		if (op == FUSE_OPEN)
			ec_op_open(r, node, &f);
		else
			ec_reply_open(r, &f);
		return true;
	}
	case FUSE_READ:
	case FUSE_READDIR:
	case FUSE_READDIRPLUS: {
		const struct fuse_read_in *m = take(a, sizeof(*m));

		if (!m || m->size > EC_MAX_WRITE)
			return false;
		f.fh = m->fh;
		f.flags = m->flags;
		if (op == FUSE_READ)
			ec_op_read(r, node, m->size, m->offset, &f);
		else
			(op == FUSE_READDIR ? ec_op_readdir : ec_op_readdirplus)(r, node, m->size,
										m->offset, &f);
		return true;
	}
	case FUSE_WRITE: {
		const struct fuse_write_in *m = take(a, sizeof(*m));
		const void *data = m ? take(a, m->size) : NULL;

		if (!data)
			return false;
		f.fh = m->fh;
		f.flags = m->flags;
		f.kill_suidgid = m->write_flags & FUSE_WRITE_KILL_SUIDGID;
		ec_op_write(r, node, data, m->size, m->offset, &f);
		return true;
	}
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR: {
		const struct fuse_release_in *m = take(a, op == FUSE_FLUSH ? sizeof(struct fuse_flush_in)
								 : sizeof(*m));

		if (!m)
			return false;
		f.fh = m->fh;
		if (op == FUSE_FLUSH)
			ec_op_flush(r, node, &f);
		else if (op == FUSE_RELEASE)
			ec_op_release(r, node, &f);
		else
			ec_reply_err(r, 0);
		return true;
	}
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR: {
		const struct fuse_fsync_in *m = take(a, sizeof(*m));

		if (!m)
			return false;
		f.fh = m->fh;
		ec_op_fsync(r, node, m->fsync_flags & 1, &f);
		return true;
	}
	case FUSE_STATFS:
		ec_op_statfs(r, node);
		return true;
	case FUSE_LISTXATTR: {
		const struct fuse_getxattr_in *m = take(a, sizeof(*m));

		if (!m)
			return false;
		ec_op_listxattr(r, node, m->size);
		return true;
	}
	case FUSE_FALLOCATE: {
		const struct fuse_fallocate_in *m = take(a, sizeof(*m));

		if (!m)
			return false;
		f.fh = m->fh;
		ec_op_fallocate(r, node, (int)m->mode, m->offset, m->length, &f);
		return true;
	}
	case FUSE_LSEEK: {
		const struct fuse_lseek_in *m = take(a, sizeof(*m));

		if (!m)
			return false;
		f.fh = m->fh;
		ec_op_lseek(r, node, m->offset, (int)m->whence, &f);
		return true;
	}
	case FUSE_SYNCFS:
		ec_op_fsync(r, node, 0, NULL);
		return true;
	}
	return dispatch_named(r, op, node, a);
}

/* FORGET and BATCH_FORGET: no reply. */
static bool do_forget(struct ec_req *r, uint32_t op, uint64_t node, struct args *a)
{
	if (op == FUSE_FORGET) {
		const struct fuse_forget_in *m = take(a, sizeof(*m));

		if (m)
			ec_op_forget(r, node, m->nlookup);
		return true;
	}
	const struct fuse_batch_forget_in *b = take(a, sizeof(*b));

	if (!b || b->count > a->left / sizeof(struct fuse_forget_one))
		return true;	/* nothing to answer, nothing trustworthy to forget */
	for (uint32_t i = 0; i < b->count; i++) {
		const struct fuse_forget_one *one = take(a, sizeof(*one));

		ec_op_forget(r, one->nodeid, one->nlookup);
	}
	return true;
}

static void dispatch(struct ec_ctx *c, const char *buf, size_t n)
{
	const struct fuse_in_header *h = (const struct fuse_in_header *)buf;
	struct ec_req r = { .c = c };
	struct args a = { buf + sizeof(*h), n - sizeof(*h) };

	r.unique = h->unique;
	r.uid = h->uid;
	r.gid = h->gid;
	r.pid = h->pid;
	count(h->opcode);
	c->unsynced |= changes(h->opcode);
	if (c->opt.debug)
		ec_log(EC_LOG_DEBUG, "ext4cell-server: request %llu: opcode %u node %llu, %zu "
		       "bytes\n", (unsigned long long)h->unique, h->opcode,
		       (unsigned long long)h->nodeid, n);
	if (h->opcode == FUSE_INIT) {
		do_init(&r, &a);
		return;
	}
	if (!c->initialized) {
		ec_reply_err(&r, EIO);
		return;
	}
	switch (h->opcode) {
	case FUSE_DESTROY:
		do_destroy(&r);
		return;
	case FUSE_INTERRUPT:
		return;		/* one request at a time: nothing is ever pending */
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
		do_forget(&r, h->opcode, h->nodeid, &a);
		return;
	}
	if (ec_iomap_dispatch(&r, h->opcode, h->nodeid, a.p, a.left))
		return;
	if (!dispatch_node(&r, h->opcode, h->nodeid, &a))
		ec_reply_err(&r, EINVAL);
}

int ec_wire_loop(struct ec_ctx *c)
{
	char *buf = malloc(EC_BUF_SIZE);
	int rc = 0;

	if (!buf) {
		ec_log(EC_LOG_ERR, "ext4cell-server: %s: out of memory\n", c->devname);
		return -1;
	}
	while (!c->exiting && !stop_asked) {
		ssize_t n = read(c->fuse_fd, buf, EC_BUF_SIZE);

		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT)) {
			maybe_commit(c);
			continue;
		}
		if (n < 0 && errno == ENODEV)
			break;		/* unmounted */
		if (n < 0) {
			ec_log(EC_LOG_ERR, "ext4cell-server: %s: reading /dev/fuse: %s\n",
			       c->devname, strerror(errno));
			rc = -1;
			break;
		}
		if ((size_t)n < sizeof(struct fuse_in_header) ||
		    ((const struct fuse_in_header *)buf)->len != (uint32_t)n) {
			ec_log(EC_LOG_ERR, "ext4cell-server: %s: malformed request from the "
			       "kernel (%zd bytes)\n", c->devname, n);
			rc = -1;
			break;
		}
		dispatch(c, buf, (size_t)n);
		maybe_commit(c);
	}
	free(buf);
	ec_log(EC_LOG_INFO, "ext4cell-server: %s: requests: %llu in all, %llu READ, %llu WRITE, "
	       "%llu IOMAP_BEGIN, %llu IOMAP_IOEND, %llu GETXATTR, %llu GETATTR, %llu FLUSH (%s mode)\n",
	       c->devname, served.all, served.read, served.write, served.begin, served.ioend,
	       served.getxattr, served.getattr, served.flush,
	       c->iomap ? "iomap" : "classic");
	return rc;
}
