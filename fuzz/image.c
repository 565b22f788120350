/* fuzz/image.c: libFuzzer target: the input is an ext2/3/4 image. It is
 * opened as a read-write mount would open it (feature policy, journal
 * replay: server/fsopen.c) and walked with the server's own request
 * handlers (lookup, getattr, readdir, read, readlink, xattrs, lseek) and
 * its iomap answers (BEGIN over every file: the mapping core), then
 * changed with a few writes (create, write, iomap BEGIN and IOEND,
 * truncate, fallocate, link, rename, symlink, unlink, mkdir, rmdir, xattrs)
 * and closed as at unmount. An image that fuzz/fsck.c finds consistent
 * before the writes must still be consistent after them: the writes are
 * the server's, so a difference is a finding. The work per input is
 * bounded (see the MAX_ constants) so that anything slow is the server's
 * doing. */
#include "fsck.h"
#include "fsrun.h"
#include "../server/fsopen.h"
#include "../server/ops.h"
#include "../proto/fuse_iomap.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_DIRS	32	/* directories listed */
#define MAX_NODES	256	/* entries looked up */
#define MAX_READ	(64 * 1024)	/* bytes read per file */
#define MAX_RUNS	64	/* mapping runs asked per file */
#define MAX_XATTRS	16	/* xattrs read per inode */
#define CHUNK		(16 * 1024)	/* one READ or READDIR */

static struct fz_fs f;
static char reply[CHUNK + 4096];

/* The reply to the request just handled: its payload length, or -errno.
 * Every request but FORGET gets exactly one reply, whole (wire.h): a
 * handler that answers twice or never is a finding. */
static long answer(void)
{
	struct fuse_out_header *oh = (struct fuse_out_header *)reply;
	ssize_t n = recv(f.peer, reply, sizeof(reply), MSG_DONTWAIT | MSG_TRUNC);
	char more;

	if (n < (ssize_t)sizeof(*oh) || (size_t)n > sizeof(reply) || oh->len != (uint32_t)n ||
	    recv(f.peer, &more, 1, MSG_DONTWAIT | MSG_PEEK) >= 0) {
		fprintf(stderr, "fuzz/image: a request got %s\n",
			n < 0 ? "no reply" : "a malformed reply or two replies");
		abort();
	}
	return oh->error ? oh->error : (long)(n - (ssize_t)sizeof(*oh));
}

static void *payload(void)
{
	return reply + sizeof(struct fuse_out_header);
}

static struct ec_req req(void)
{
	return (struct ec_req){ .c = &f.c, .unique = 1, .umask = 022 };
}

/* The node of name in dir (a lookup reference the caller forgets), or 0. */
static uint64_t lookup(uint64_t dir, const char *name, uint32_t *mode)
{
	struct ec_req r = req();
	struct fuse_entry_out *e = payload();

	ec_op_lookup(&r, dir, name);
	if (answer() < (long)sizeof(*e))
		return 0;
	*mode = e->attr.mode;
	return e->nodeid;
}

static void forget(uint64_t node)
{
	struct ec_req r = req();

	ec_op_forget(&r, node, 1);
}

/* An iomap request (ops_iomap.c) as the kernel sends it on a connection in
 * iomap mode (the device registered as 1); its reply is in reply[]. */
static long iomap(uint32_t op, uint64_t node, const void *in, size_t n)
{
	struct ec_req r = req();
	long got;

	f.c.iomap = true;
	f.c.dev_id = 1;
	ec_iomap_dispatch(&r, op, node, in, n);
	got = answer();
	f.c.iomap = false;
	return got;
}

/* What iomap BEGIN answers for reads over the whole file, run after run. */
static void map_all(uint64_t node)
{
	struct fuse_iomap_begin_in in = { .attr_ino = node, .count = 1 };
	struct fuse_iomap_begin_out *out = payload();
	struct fuse_attr_out *a = payload();
	struct ec_req r = req();
	uint64_t size;
	int i;

	ec_op_getattr(&r, node);
	if (answer() < (long)sizeof(*a))
		return;
	size = a->attr.size;
	for (i = 0; i < MAX_RUNS && in.pos < size; i++) {
		if (iomap(FUSE_IOMAP_BEGIN_OP, node, &in, sizeof(in)) < (long)sizeof(*out) ||
		    out->read.offset > in.pos || out->read.offset + out->read.length <= in.pos)
			return;
		in.pos = out->read.offset + out->read.length;
	}
}

/* A buffered write in iomap mode: BEGIN for writing (unwritten blocks
 * for a hole), then IOEND converting them and setting the size. */
static void iomap_write(uint64_t node, uint64_t off, uint64_t len)
{
	struct fuse_iomap_begin_in b = { .opflags = FUSE_IOMAP_OP_WRITE, .attr_ino = node,
					 .pos = off, .count = len };
	struct fuse_iomap_ioend_in e = { .flags = FUSE_IOMAP_IOEND_UNWRITTEN, .attr_ino = node,
					 .pos = off, .written = len, .dev = 1 };

	iomap(FUSE_IOMAP_BEGIN_OP, node, &b, sizeof(b));
	iomap(FUSE_IOMAP_IOEND_OP, node, &e, sizeof(e));
}

static void read_file(uint64_t node)
{
	struct ec_file fi = { .flags = O_RDONLY };
	struct ec_req r = req();
	uint64_t off = 0;
	long n;

	ec_op_open(&r, node, &fi);
	if (answer() < 0)
		return;
	do {
		r = req();
		ec_op_read(&r, node, CHUNK, (off_t)off, &fi);
		n = answer();
		off += n > 0 ? (uint64_t)n : 0;
	} while (n == CHUNK && off < MAX_READ);
	r = req();
	ec_op_lseek(&r, node, 0, SEEK_DATA, &fi);
	answer();
	r = req();
	ec_op_lseek(&r, node, 0, SEEK_HOLE, &fi);
	answer();
	map_all(node);
}

static void xattrs(uint64_t node)
{
	struct ec_req r = req();
	char names[4096], *p;
	long n;
	int i = 0;

	ec_op_listxattr(&r, node, 0);
	answer();
	r = req();
	ec_op_listxattr(&r, node, sizeof(names) - 1);
	n = answer();
	if (n <= 0)
		return;
	memcpy(names, payload(), (size_t)n);
	names[n] = 0;
	for (p = names; p < names + n && i < MAX_XATTRS; p += strlen(p) + 1, i++) {
		r = req();
		ec_op_getxattr(&r, node, p, 0);
		answer();
		r = req();
		ec_op_getxattr(&r, node, p, CHUNK);
		answer();
	}
}

/* Everything a reader of this node may ask, by its type. */
static void visit(uint64_t node, uint32_t mode)
{
	struct ec_req r = req();

	ec_op_getattr(&r, node);
	answer();
	if (S_ISREG(mode)) {
		read_file(node);
	} else if (S_ISLNK(mode)) {
		r = req();
		ec_op_readlink(&r, node);
		answer();
	}
	xattrs(node);
}

struct walk {
	uint64_t dirs[MAX_DIRS];
	int ndirs, nnodes;
	uint64_t file;		/* a regular file met on the way, for the writes */
};

/* Lists dir in READDIR and READDIRPLUS batches, visiting each entry. */
static void list(struct walk *w, uint64_t dir, bool plus)
{
	struct ec_file fi = { .flags = O_RDONLY };
	uint64_t off = 0;
	long n;

	do {
		struct ec_req r = req();
		char batch[CHUNK];
		long pos = 0;

		if (plus)
			ec_op_readdirplus(&r, dir, CHUNK, (off_t)off, &fi);
		else
			ec_op_readdir(&r, dir, CHUNK, (off_t)off, &fi);
		n = answer();
		if (n <= 0)
			return;
		memcpy(batch, payload(), (size_t)n);
		while (pos + (long)FUSE_NAME_OFFSET <= n) {
			struct fuse_dirent *d = (struct fuse_dirent *)(batch + pos);
			char name[256];
			uint32_t mode;
			uint64_t node;

			if (plus) {
				struct fuse_direntplus *dp = (struct fuse_direntplus *)(batch + pos);
				d = &dp->dirent;
				if (dp->entry_out.nodeid)
					forget(dp->entry_out.nodeid);
				pos += FUSE_DIRENTPLUS_SIZE(dp);
			} else {
				pos += FUSE_DIRENT_SIZE(d);
			}
			if (d->off <= off || d->namelen >= sizeof(name))
				return;
			off = d->off;
			memcpy(name, d->name, d->namelen);
			name[d->namelen] = 0;
			if (plus || !strcmp(name, ".") || !strcmp(name, "..") || w->nnodes >= MAX_NODES)
				continue;
			w->nnodes++;
			node = lookup(dir, name, &mode);
			if (!node)
				continue;
			visit(node, mode);
			if (S_ISDIR(mode) && w->ndirs < MAX_DIRS)
				w->dirs[w->ndirs++] = node;
			else if (S_ISREG(mode) && !w->file)
				w->file = node;
			else
				forget(node);
		}
	} while (n > 0);
}

static uint64_t create(uint64_t dir, const char *name)
{
	struct ec_file fi = { .flags = O_RDWR | O_CREAT };
	struct fuse_entry_out *e = payload();
	struct ec_req r = req();

	ec_op_create(&r, dir, name, S_IFREG | 0644, &fi);
	return answer() >= (long)sizeof(*e) ? e->nodeid : 0;
}

static void write_at(uint64_t node, uint64_t off, size_t len)
{
	static const char data[3 * 4096] = { 'e', 'x', 't', '4' };
	struct ec_file fi = { .flags = O_RDWR };
	struct ec_req r = req();

	ec_op_write(&r, node, data, len, (off_t)off, &fi);
	answer();
}

static void truncate_to(uint64_t node, uint64_t size)
{
	struct stat st = { .st_size = (off_t)size };
	struct ec_req r = req();

	ec_op_setattr(&r, node, &st, EC_SET_ATTR_SIZE, NULL);
	answer();
}

static void space(uint64_t node, int mode, uint64_t off, uint64_t len)
{
	struct ec_file fi = { .flags = O_RDWR };
	struct ec_req r = req();

	ec_op_fallocate(&r, node, mode, (off_t)off, (off_t)len, &fi);
	answer();
}

/* A new file in the root: small and whole-block writes, fallocate, a
 * truncate; linked, renamed over, unlinked. */
static void new_file(uint64_t bs)
{
	uint64_t node = create(EC_ROOT_ID, "fuzz.new");
	struct ec_req r = req();

	if (!node)
		return;
	write_at(node, 0, 100);
	write_at(node, 2 * bs, 2 * bs);
	iomap_write(node, 9 * bs, 2 * bs);
	space(node, 0, 6 * bs, 3 * bs);
	space(node, FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, 2 * bs, bs);
	map_all(node);
	truncate_to(node, bs + 1);
	ec_op_link(&r, node, EC_ROOT_ID, "fuzz.link");
	if (answer() >= (long)sizeof(struct fuse_entry_out))
		forget(node);
	r = req();
	ec_op_symlink(&r, "fuzz.new", EC_ROOT_ID, "fuzz.sym");
	if (answer() >= (long)sizeof(struct fuse_entry_out))
		forget(((struct fuse_entry_out *)payload())->nodeid);
	r = req();
	ec_op_rename(&r, EC_ROOT_ID, "fuzz.sym", EC_ROOT_ID, "fuzz.link", 0);
	answer();
	forget(node);
	for (const char *const *n = (const char *const[]){ "fuzz.new", "fuzz.link", NULL }; *n; n++) {
		r = req();
		ec_op_unlink(&r, EC_ROOT_ID, *n);
		answer();
	}
}

/* The new file, a write into an existing file, a directory made and
 * removed, an xattr set and removed. */
static void change(uint64_t file)
{
	uint64_t bs = f.c.fs->blocksize;
	struct ec_req r = req();

	new_file(bs);
	if (file) {
		write_at(file, bs, bs);
		write_at(file, 7, 10);
		iomap_write(file, 3 * bs, bs + 5);
		space(file, FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, 0, bs);
		truncate_to(file, 3 * bs / 2);
		map_all(file);
	}
	r = req();
	ec_op_mkdir(&r, EC_ROOT_ID, "fuzz.dir", 0755);
	if (answer() >= (long)sizeof(struct fuse_entry_out)) {
		forget(((struct fuse_entry_out *)payload())->nodeid);
		r = req();
		ec_op_rmdir(&r, EC_ROOT_ID, "fuzz.dir");
		answer();
	}
	r = req();
	ec_op_setxattr(&r, EC_ROOT_ID, "user.fuzz", "value", 5, 0);
	answer();
	xattrs(EC_ROOT_ID);
	r = req();
	ec_op_removexattr(&r, EC_ROOT_ID, "user.fuzz");
	answer();
}

/* fz_fsck() of the image as it is now; *why says what it found. */
static enum fz_fsck check(const char *when, char *why, size_t n)
{
	enum fz_fsck res = fz_fsck(f.c.fs, why, n);

	if (getenv("EC_FUZZ_LOG"))
		fprintf(stderr, "fuzz/image: %s the writes: %s%s\n", when,
			res == FZ_FSCK_CLEAN ? "consistent" :
			res == FZ_FSCK_BROKEN ? "inconsistent: " : "not checked", why);
	return res;
}

/* The writes, with the consistency check around them; the nodes in w are
 * forgotten first, so that nothing the writes unlinked stays open, and the
 * changes committed. */
static void change_checked(struct walk *w)
{
	char why[512];
	enum fz_fsck before = check("before", why, sizeof(why));
	int i;

	change(w->file);
	for (i = 1; i < w->ndirs; i++)
		forget(w->dirs[i]);
	if (w->file)
		forget(w->file);
	w->ndirs = 1;
	w->file = 0;
	/* committed: blocks freed since the last commit are free again
	 * (journaled, they are held in use until then: server/freed.h) */
	ec_fs_sync(&f.c);
	if (before == FZ_FSCK_CLEAN && check("after", why, sizeof(why)) == FZ_FSCK_BROKEN) {
		fprintf(stderr, "fuzz/image: the writes left a consistent image inconsistent: "
			"%s\n", why);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct walk w = { .dirs = { EC_ROOT_ID }, .ndirs = 1 };
	int fd = fz_memfd(data, size), i;

	if (fd < 0)
		return 0;
	if (fz_open(&f, fd)) {
		close(fd);
		return 0;
	}
	visit(EC_ROOT_ID, S_IFDIR);
	for (i = 0; i < w.ndirs; i++)
		list(&w, w.dirs[i], false);
	list(&w, EC_ROOT_ID, true);
	if (!f.c.ro)
		change_checked(&w);
	for (i = 1; i < w.ndirs; i++)
		forget(w.dirs[i]);
	if (w.file)
		forget(w.file);
	fz_close(&f);
	close(fd);
	return 0;
}
