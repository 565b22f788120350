/* iomap-test-server: a raw /dev/fuse server for the kernel's FUSE iomap tests.
 * It serves the files of model.h, whose extents map into DEVICE (filled by
 * `iomap-check fill`), either through iomap (FUSE_IOMAP_BEGIN answers) or, when
 * the kernel does not offer iomap, through classic FUSE_READ on the device.
 * The writable file "w" (wfile.c) gets blocks on write mappings (UNWRITTEN
 * until FUSE_IOMAP_IOEND converts them and sets the size; its attributes
 * count them in fuse_attr.blocks from the start), is truncated by
 * FUSE_SETATTR and O_TRUNC, fallocated by FUSE_FALLOCATE, and describes
 * itself in its extended attribute "user.iomap.state" (with the number of
 * FUSE_FSYNC, FUSE_SYNCFS and FUSE_COPY_FILE_RANGE requests seen, and its
 * times; it answers FUSE_COPY_FILE_RANGE with ENOSYS); FUSE_DESTROY
 * writes a mark past the test area of DEVICE (wdurable.h) before it is
 * answered. The times of "w" are the server's, changed only by FUSE_SETATTR
 * (the kernel owns them): they persist from one server to the next in the
 * block of that mark (wtimes.h), the rest of "w" starts empty.
 * --mode selects a hostile behaviour for FUSE_IOMAP_BEGIN of "f", or, for
 * the modes from "w-beyond-end" on, on the write side of "w" (see usage()).
 * --bench lets "w" grow to 256 MiB with blocks from [512 MiB, 768 MiB) of
 * DEVICE, for bench/iomap-smoke.sh. --forget-w answers lookups of "w" with
 * an entry timeout of 0, so that the kernel drops its dentry, and the inode
 * unless something keeps it, as soon as the last user is gone.
 * --stale-tail starts w at 10000 bytes over four written blocks of 'Z',
 * the last one and a half past EOF (as a crash can leave a file).
 * --blksize N reports N as the block size of the files (fuse_attr.blksize;
 * the mappings stay in 4 KiB units). Reading the extended attribute
 * "user.iomap.store" of "f" makes the server push 8 KiB of 0xa5 across its
 * EOF into the kernel's page cache with FUSE_NOTIFY_STORE; reading
 * "user.iomap.adddev" makes it register --late-dev PATH (a second block
 * device) only then. Each happens once; the value says how it went:
 * "store=OK|ERRNO-NAME", "adddev=ID|ERRNO-NAME". Reading "user.iomap.defer"
 * of w holds back the reply to its next write BEGIN (wdefer.h);
 * "user.iomap.deferred" says how that went. Reading "user.iomap.limits"
 * probes the kernel's limits on device registrations (probe_limits()).
 * The parent marks /dev/fuse with FUSE_DEV_IOC_ADD_IOMAP (not with
 * --no-mark) and mounts, then exits once the child has answered FUSE_INIT
 * and registered the device, printing "iomap=0|1 dev=ID"; with
 * --status-all "offered=0|1 iomap=0|1 dev=ID mark=ok|none|ERRNO-NAME"
 * (offered: FUSE_IOMAP was in FUSE_INIT). --fusermount: the child drops to
 * nobody and mounts through the setuid fusermount3 as a libfuse server
 * does (unmarked); --claim-iomap: accept FUSE_IOMAP in the INIT reply even
 * when it was not offered (a registration the kernel refuses is then
 * dev=0, not an error). --fuzz SEED: after FUSE_INIT, replies are mutated
 * and notifications pushed at random (wfuzz.h), counted in --fuzz-log PATH. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../proto/fuse_iomap.h"
#include "model.h"
#include "wdefer.h"
#include "wdurable.h"
#include "wfile.h"
#include "wfuzz.h"
#include "wtimes.h"

static const char *const modes[] = {
	"good", "beyond-end", "addr-overflow", "misaligned-offset", "misaligned-length",
	"zero-length", "bad-type", "bad-flags", "not-covering", "unregistered-dev",
	"closed-dev", "dev-on-hole", "write-ro", "inline", "delalloc", "hang", "die",
	/* write side of "w" from here on */
	"w-beyond-end", "w-hole", "ioend-absurd", "ioend-die",
	/* the same for buffered writes, under the names of their cases */
	"wb-hole", "wb-absurd", "wb-die",
	/* IOEND answered with an error, a size below the write's end */
	"ioend-error", "wb-error", "wb-shrunk",
	/* writeback (write mappings after a FUSE_IOMAP_END) beyond the device;
	 * write mappings on a device registered read-only */
	"wb-beyond-end", "bw-ro",
	/* write faults of shared mappings: the server dies, or maps elsewhere */
	"mkwrite-die", "mkwrite-bad",
	/* a write mapping of other blocks over written data (copy-on-write) */
	"w-cow",
	/* writeback's write mappings never answered */
	"wb-hang",
};
#define FIRST_WRITE_MODE 17
#define NMODES (sizeof(modes) / sizeof(modes[0]))

static struct {
	int mode;
	bool no_mark, drop_rawio, user, no_iomap, verbose, bench;
	bool forget_w;		/* the kernel may drop w's dentry at once */
	bool stale_tail;	/* w starts over written blocks past its EOF */
	bool fusermount, claim_iomap, status_all;
	const char *mark;	/* outcome of FUSE_DEV_IOC_ADD_IOMAP */
	bool offered;		/* FUSE_IOMAP was in FUSE_INIT */
	int fuse_fd, dev_fd;
	uint64_t dev_size;
	uint32_t dev_id, closed_id;
	bool iomap;
	uint64_t ends, fsyncs;	/* FUSE_IOMAP_END and FUSE_FSYNC seen */
	uint64_t wb_maps;	/* FUSE_IOMAP_BEGIN with FUSE_IOMAP_OP_WRITEBACK */
	uint64_t wb_ioends, dio_ioends;	/* IOENDs flagged WRITEBACK, DIRECT */
	uint64_t syncfs;	/* FUSE_SYNCFS seen */
	uint64_t copies;	/* FUSE_COPY_FILE_RANGE seen */
	struct timespec w_mtime, w_ctime;	/* the times of "w" */
	uint64_t time_setattrs;	/* FUSE_SETATTR setting them */
	uint32_t blksize;	/* fuse_attr.blksize of the files */
	const char *late_dev;	/* registered at "user.iomap.adddev" */
	const char *fuzz_log;	/* --fuzz-log: wfuzz.h's counts */
	uint64_t fuzz_seed;	/* --fuzz: nonzero mutates replies (wfuzz.h) */
} s;

static int mode_is(const char *name)
{
	return !strcmp(modes[s.mode], name);
}

static void usage(void)
{
	fprintf(stderr, "usage: iomap-test-server [--mode MODE] [--no-mark] [--drop-rawio]\n"
			"  [--user] [--no-iomap] [--bench] [--fusermount] [--claim-iomap]\n"
			"  [--status-all] [--forget-w] [--stale-tail] [--blksize N] [--late-dev PATH]\n"
			"  [--fuzz SEED [--fuzz-log PATH]] [-v]\n"
			"  DEVICE MOUNTPOINT\nmodes:");
	for (size_t i = 0; i < NMODES; i++)
		fprintf(stderr, " %s", modes[i]);
	fprintf(stderr, "\n");
	exit(2);
}

/* --stale-tail: w is 10000 bytes over four written blocks of 'Z', on the
 * device before the kernel reads or writes them (bios bypass the device's
 * page cache, which a later sync would write over them). */
static int stale_tail(void)
{
	static uint8_t z[4 * M_BLOCK];
	struct fuse_iomap_io m;

	memset(z, 'Z', sizeof(z));
	if (wf_preset(10000, 4) || wf_map(0, 0, false, 0, &m) ||
	    m.length != sizeof(z) ||
	    pwrite(s.dev_fd, z, sizeof(z), (off_t)m.addr) != (ssize_t)sizeof(z) ||
	    fsync(s.dev_fd)) {
		fprintf(stderr, "server: --stale-tail: cannot set up w\n");
		return -1;
	}
	return 0;
}

/* Remove CAP_SYS_RAWIO from every set of this process. */
static int drop_rawio(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int w = CAP_SYS_RAWIO / 32;
	uint32_t bit = 1U << (CAP_SYS_RAWIO % 32);

	if (prctl(PR_CAPBSET_DROP, CAP_SYS_RAWIO, 0, 0, 0) ||
	    syscall(SYS_capget, &h, d))
		return -1;
	d[w].effective &= ~bit;
	d[w].permitted &= ~bit;
	d[w].inheritable &= ~bit;
	return syscall(SYS_capset, &h, d);
}

static int reply(uint64_t unique, int error, const void *data, size_t len)
{
	struct fuse_out_header oh = { sizeof(oh) + (error ? 0 : len), -error, unique };
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { (void *)data, error ? 0 : len } };

	if (fz_active())
		return fz_reply(unique, error, data, len);
	if (writev(s.fuse_fd, iov, 2) < 0 && errno != ENOENT) {
		if (s.verbose)
			perror("server: reply");
		return -1;
	}
	return 0;
}

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	const struct m_file *f = m_by_ino(ino);

	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = s.blksize;
	if (!f && ino != M_W_INO) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
		return;
	}
	a->mode = f ? S_IFREG | 0444 : S_IFREG | 0644;
	a->size = f ? f->size : wf_size();
	/* w: the blocks allocated (also before FUSE_IOMAP_IOEND), in 512s */
	a->blocks = f ? (a->size + 511) / 512 : wf_blocks() * (M_BLOCK / 512);
	if (!f) {
		a->mtime = s.w_mtime.tv_sec;
		a->mtimensec = s.w_mtime.tv_nsec;
		a->ctime = s.w_ctime.tv_sec;
		a->ctimensec = s.w_ctime.tv_nsec;
	}
	if (s.iomap)
		a->flags = FUSE_ATTR_IOMAP | FUSE_ATTR_EXCLUSIVE;
}

static void do_init(uint64_t unique, const struct fuse_init_in *in, int sender)
{
	struct fuse_init_out out = { 0 };
	uint64_t flags = in->flags;

	if (in->flags & FUSE_INIT_EXT)
		flags |= (uint64_t)in->flags2 << 32;
	s.offered = !!(flags & FUSE_IOMAP_INIT);
	if (s.claim_iomap)
		flags |= FUSE_IOMAP_INIT;
	out.major = FUSE_KERNEL_VERSION;
	out.minor = in->minor < FUSE_IOMAP_MINOR ? in->minor : FUSE_IOMAP_MINOR;
	out.max_readahead = in->max_readahead;
	out.max_write = 128 * 1024;
	out.max_pages = 32;
	out.max_background = 16;
	out.time_gran = 1;
	flags &= FUSE_INIT_EXT | FUSE_MAX_PAGES | FUSE_ASYNC_READ | FUSE_ATOMIC_O_TRUNC |
		 FUSE_IOMAP_INIT;
	if (s.no_iomap)
		flags &= ~FUSE_IOMAP_INIT;
	out.flags = (uint32_t)flags;
	out.flags2 = (uint32_t)(flags >> 32);
	reply(unique, 0, &out, sizeof(out));
	s.iomap = !!(flags & FUSE_IOMAP_INIT);

	if (s.iomap) {
		struct fuse_backing_map map = { s.dev_fd, FUSE_BACKING_TYPE_IOMAP, 0 };
		int id = ioctl(s.fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &map);

		if (id <= 0 && s.claim_iomap && !s.offered) {
			id = 0;		/* the kernel did not take the claim */
		} else if (id <= 0) {
			perror("server: FUSE_DEV_IOC_BACKING_OPEN");
			exit(1);
		}
		s.dev_id = id;
		if (mode_is("closed-dev")) {
			/* the kernel keeps a registered device: an id past it */
			int cid = ioctl(s.fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &map);

			if (cid <= 0 || !ioctl(s.fuse_fd, FUSE_DEV_IOC_BACKING_CLOSE,
					       &(uint32_t){ cid }) || errno != EBUSY) {
				perror("server: closing a registered device id: want EBUSY");
				exit(1);
			}
			s.closed_id = cid + 1;
		}
	}
	if (s.status_all)
		dprintf(sender, "offered=%d iomap=%d dev=%u mark=%s\n", s.offered, s.iomap,
			s.dev_id, s.mark);
	else
		dprintf(sender, "iomap=%d dev=%u\n", s.iomap, s.dev_id);
	close(sender);
}

/* The correct mapping of file f at pos. */
static void good_map(const struct m_file *f, uint64_t pos, struct fuse_iomap_io *m)
{
	const struct m_extent *e = f ? m_find(f, pos) : NULL;

	memset(m, 0, sizeof(*m));
	m->addr = FUSE_IOMAP_NULL_ADDR;
	if (!e) {
		m->offset = pos & ~(M_BLOCK - 1);
		m->length = m->offset < (1ULL << 62) ? 1ULL << 30 : M_BLOCK;
		m->type = FUSE_IOMAP_TYPE_HOLE;
		return;
	}
	m->offset = e->off;
	m->length = e->len;
	if (e->type == M_HOLE) {
		m->type = FUSE_IOMAP_TYPE_HOLE;
		return;
	}
	m->type = e->type == M_MAPPED ? FUSE_IOMAP_TYPE_MAPPED : FUSE_IOMAP_TYPE_UNWRITTEN;
	m->addr = e->addr;
	m->dev = s.dev_id;
}

/* FUSE_IOMAP_BEGIN for "w": allocate on writes (not on FUSE_IOMAP_OP_ZERO
 * alone: zeroing skips holes), map the run of blocks at pos. */
static void w_begin(uint64_t unique, const struct fuse_iomap_begin_in *in)
{
	struct fuse_iomap_begin_out out;
	struct fuse_iomap_io *m = &out.read;
	bool write = in->opflags & FUSE_IOMAP_OP_WRITE;
	bool fault = in->opflags & FUSE_IOMAP_OP_FAULT;
	int err;

	memset(&out, 0, sizeof(out));
	out.write.type = FUSE_IOMAP_TYPE_PURE_OVERWRITE;
	s.wb_maps += !!(in->opflags & FUSE_IOMAP_OP_WRITEBACK);
	if (write && fault && mode_is("mkwrite-die"))
		_exit(3);
	if (write && s.ends && mode_is("wb-hang"))
		return;
	err = wf_map(in->pos, in->count, write, s.dev_id, m);
	if (err)
		return (void)reply(unique, err, NULL, 0);
	/* these modes change course once a write's FUSE_IOMAP_END arrived */
	if (write && (mode_is("wb-hang") || mode_is("wb-beyond-end")))
		m->flags |= FUSE_IOMAP_F_WANT_IOMAP_END;
	if (write && ((s.ends && mode_is("wb-beyond-end")) || mode_is("w-beyond-end"))) {
		m->type = FUSE_IOMAP_TYPE_MAPPED;
		m->addr = s.dev_size - M_BLOCK;
		m->length = 2 * M_BLOCK;
		m->dev = s.dev_id;
	} else if (write && (mode_is("w-hole") || mode_is("wb-hole"))) {
		m->type = FUSE_IOMAP_TYPE_HOLE;
		m->addr = FUSE_IOMAP_NULL_ADDR;
		m->dev = 0;
	} else if (write && fault && mode_is("mkwrite-bad")) {
		m->offset += m->length;	/* does not cover pos */
	} else if (write && mode_is("w-cow") && m->type == FUSE_IOMAP_TYPE_MAPPED) {
		out.write = *m;
		out.write.addr += M_BLOCK;	/* new blocks for the old data */
	} else if (write && wd_wants()) {
		/* the whole run at pos, for the kernel to reuse if it may */
		wf_map(in->pos, 0, false, s.dev_id, m);
		return wd_hold(unique, &out);
	}
	reply(unique, 0, &out, sizeof(out));
	if (write)
		wd_event(WD_WRITE_BEGIN);
}

/* Send the held-back BEGIN reply once its time has come (wdefer.h). */
static void send_deferred(void)
{
	struct fuse_iomap_begin_out out;
	uint64_t unique;

	if (wd_due(&unique, &out))
		reply(unique, 0, &out, sizeof(out));
}

/* FUSE_IOMAP_IOEND: convert the written blocks of "w", grow its size. */
static void do_ioend(uint64_t unique, uint64_t ino, const struct fuse_iomap_ioend_in *in)
{
	struct fuse_iomap_ioend_out out;
	int err;

	if (s.verbose)
		fprintf(stderr, "server: ioend ino %llu pos %llu written %llu flags 0x%x error %d\n",
			(unsigned long long)ino, (unsigned long long)in->pos,
			(unsigned long long)in->written, in->flags, in->error);
	s.wb_ioends += !!(in->flags & FUSE_IOMAP_IOEND_WRITEBACK);
	s.dio_ioends += !!(in->flags & FUSE_IOMAP_IOEND_DIRECT);
	if (mode_is("ioend-die") || mode_is("wb-die"))
		_exit(3);
	if (mode_is("ioend-error") || mode_is("wb-error"))
		return (void)reply(unique, EIO, NULL, 0);
	err = ino == M_W_INO ? wf_ioend(in->pos, in->written, in->error) : EINVAL;
	if (err)
		return (void)reply(unique, err, NULL, 0);
	out.newsize = wf_size();
	if (mode_is("ioend-absurd") || mode_is("wb-absurd"))
		out.newsize = 1ULL << 62;
	else if (mode_is("wb-shrunk"))
		out.newsize = in->pos;
	reply(unique, 0, &out, sizeof(out));
}

/* FUSE_SETATTR: only the size and the times of "w" change; reply with the
 * attributes. */
static void do_setattr(uint64_t unique, uint64_t ino, const struct fuse_setattr_in *in)
{
	struct fuse_attr_out ao;
	struct timespec now;
	int err = 0;

	if (s.verbose && (in->valid & FATTR_SIZE))
		fprintf(stderr, "server: truncate ino %llu to %llu\n", (unsigned long long)ino,
			(unsigned long long)in->size);
	if (s.verbose && (in->valid & (FATTR_MTIME | FATTR_CTIME)))
		fprintf(stderr, "server: setattr ino %llu valid 0x%x mtime %llu.%09u ctime %llu.%09u\n",
			(unsigned long long)ino, in->valid, (unsigned long long)in->mtime,
			in->mtimensec, (unsigned long long)in->ctime, in->ctimensec);
	if (in->valid & FATTR_SIZE)
		err = ino == M_W_INO ? wf_truncate(in->size) : EPERM;
	if (!err && ino != M_W_INO && (in->valid & (FATTR_MTIME | FATTR_CTIME)))
		err = EPERM;
	if (err)
		return (void)reply(unique, err, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &now);
	if (in->valid & FATTR_MTIME)
		s.w_mtime = (in->valid & FATTR_MTIME_NOW) ? now :
			(struct timespec){ (time_t)in->mtime, in->mtimensec };
	if (in->valid & FATTR_CTIME)
		s.w_ctime = (struct timespec){ (time_t)in->ctime, in->ctimensec };
	if (in->valid & (FATTR_MTIME | FATTR_CTIME))
		s.time_setattrs++;
	memset(&ao, 0, sizeof(ao));
	ao.attr_valid = 3600;
	fill_attr(&ao.attr, ino);
	reply(unique, 0, &ao, sizeof(ao));
}

/* FUSE_NOTIFY_STORE of 8 KiB of 0xa5 at 32 KiB of f (across its EOF at
 * 38000): 0 or the errno of the write to /dev/fuse */
static int notify_store(void)
{
	static uint8_t data[8192];
	struct fuse_notify_store_out so = { m_lookup("f")->ino, 32768, sizeof(data), 0 };
	struct fuse_out_header oh = { sizeof(oh) + sizeof(so) + sizeof(data),
				      FUSE_NOTIFY_STORE, 0 };
	struct iovec iov[3] = { { &oh, sizeof(oh) }, { &so, sizeof(so) },
				{ data, sizeof(data) } };

	memset(data, 0xa5, sizeof(data));
	return writev(s.fuse_fd, iov, 3) < 0 ? errno : 0;
}

/* --late-dev registered now: its id, or -errno */
static int add_late_dev(void)
{
	struct fuse_backing_map map = { -1, FUSE_BACKING_TYPE_IOMAP, 0 };
	int id;

	if (!s.late_dev)
		return -ENOENT;
	map.fd = open(s.late_dev, O_RDWR | O_CLOEXEC);
	if (map.fd < 0)
		return -errno;
	id = ioctl(s.fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &map);
	return id < 0 ? -errno : id;
}

static const char *err_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "unknown";
}

/* "user.iomap.limits": register the device until the kernel refuses, then
 * a write-only fd of it, then close a registered id:
 * "registered=N then=ERRNO wronly=ERRNO|ID close=ERRNO|OK" (N counts the
 * first registration too) */
static void probe_limits(char *buf, size_t len)
{
	struct fuse_backing_map map = { s.dev_fd, FUSE_BACKING_TYPE_IOMAP, 0 };
	char self[64];
	int n = 1, then, wronly, closed;

	while (n < 5000 && ioctl(s.fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &map) > 0)
		n++;
	then = errno;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", s.dev_fd);
	map.fd = open(self, O_WRONLY | O_CLOEXEC);
	/* errno of the open or of the registration, 0 if registered */
	wronly = map.fd < 0 || ioctl(s.fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &map) < 0 ? errno : 0;
	if (map.fd >= 0)
		close(map.fd);
	closed = ioctl(s.fuse_fd, FUSE_DEV_IOC_BACKING_CLOSE, &(uint32_t){ s.dev_id }) ? errno : 0;
	snprintf(buf, len, "registered=%d then=%s wronly=%s close=%s", n, err_name(then),
		 wronly ? err_name(wronly) : "ID", closed ? err_name(closed) : "OK");
}

/* FUSE_GETXATTR "user.iomap.state" of "w": wf_describe() and fsyncs;
 * "user.iomap.store" of f and "user.iomap.adddev" (see the top). */
static void do_getxattr(uint64_t unique, uint64_t ino, const struct fuse_getxattr_in *in)
{
	static char store[64], adddev[64];
	const char *name = (const char *)(in + 1);
	char buf[512];
	size_t n;

	if (!strcmp(name, "user.iomap.store") && ino == m_lookup("f")->ino) {
		if (!store[0]) {
			int e = notify_store();

			snprintf(store, sizeof(store), "store=%s", e ? err_name(e) : "OK");
		}
		snprintf(buf, sizeof(buf), "%s", store);
		goto out;
	}
	if (!strcmp(name, "user.iomap.adddev")) {
		if (!adddev[0]) {
			int id = add_late_dev();

			if (id > 0)
				snprintf(adddev, sizeof(adddev), "adddev=%d", id);
			else
				snprintf(adddev, sizeof(adddev), "adddev=%s", err_name(-id));
		}
		snprintf(buf, sizeof(buf), "%s", adddev);
		goto out;
	}
	if (!strcmp(name, "user.iomap.limits")) {
		probe_limits(buf, sizeof(buf));
		goto out;
	}
	if (ino == M_W_INO && !strcmp(name, "user.iomap.defer")) {
		wd_arm(buf, sizeof(buf));
		goto out;
	}
	if (ino == M_W_INO && !strcmp(name, "user.iomap.deferred")) {
		wd_describe(buf, sizeof(buf));
		goto out;
	}
	if (ino != M_W_INO || strcmp(name, "user.iomap.state"))
		return (void)reply(unique, ENODATA, NULL, 0);
	wf_describe(buf, sizeof(buf));
	n = strlen(buf);
	snprintf(buf + n, sizeof(buf) - n,
		 " fsyncs=%llu syncfs=%llu copies=%llu ends=%llu wbmaps=%llu wbioends=%llu"
		 " dioends=%llu", (unsigned long long)s.fsyncs, (unsigned long long)s.syncfs,
		 (unsigned long long)s.copies, (unsigned long long)s.ends,
		 (unsigned long long)s.wb_maps, (unsigned long long)s.wb_ioends,
		 (unsigned long long)s.dio_ioends);
	n = strlen(buf);
	wt_describe(buf + n, sizeof(buf) - n, &s.w_mtime, &s.w_ctime, s.time_setattrs);
out:
	n = strlen(buf);
	if (!in->size) {
		struct fuse_getxattr_out out = { .size = n };

		return (void)reply(unique, 0, &out, sizeof(out));
	}
	if (in->size < n)
		return (void)reply(unique, ERANGE, NULL, 0);
	reply(unique, 0, buf, n);
}

/* FUSE_DESTROY: the last thing a server writes before it answers, durably:
 * the mark that wdurable.c looks for right after umount returns, and the
 * times of "w" for the next server. */
static void do_destroy(void)
{
	static uint8_t blk[M_BLOCK];

	if (s.dev_size < DESTROY_MARK_ADDR + M_BLOCK)
		return;
	memcpy(blk, DESTROY_MARK, sizeof(DESTROY_MARK));
	wt_store(blk, &s.w_mtime, &s.w_ctime);
	if (pwrite(s.dev_fd, blk, M_BLOCK, DESTROY_MARK_ADDR) != (ssize_t)M_BLOCK ||
	    fdatasync(s.dev_fd))
		perror("server: write the FUSE_DESTROY mark");
}

/* Answer FUSE_IOMAP_BEGIN, or misbehave as --mode says. */
static void do_iomap_begin(uint64_t unique, uint64_t ino, const struct fuse_iomap_begin_in *in)
{
	struct fuse_iomap_begin_out out;
	struct fuse_iomap_io *m = &out.read;
	uint64_t base = in->pos & ~(M_BLOCK - 1);

	memset(&out, 0, sizeof(out));
	out.write.type = FUSE_IOMAP_TYPE_PURE_OVERWRITE;
	good_map(m_by_ino(ino), in->pos, m);
	if (s.verbose)
		fprintf(stderr, "server: begin ino %llu pos %llu count %llu op 0x%x\n",
			(unsigned long long)ino, (unsigned long long)in->pos,
			(unsigned long long)in->count, in->opflags);
	if (ino == M_W_INO)
		return w_begin(unique, in);
	if (mode_is("hang"))
		return;
	if (mode_is("die"))
		_exit(3);
	if (!mode_is("good") && !mode_is("write-ro") && s.mode < FIRST_WRITE_MODE) {
		/* a well-formed 4 KiB mapping at pos, then one defect */
		*m = (struct fuse_iomap_io){ base, M_BLOCK, 2 * M_MIB,
					     FUSE_IOMAP_TYPE_MAPPED, 0, s.dev_id };
	}
	if (mode_is("beyond-end")) {
		m->addr = s.dev_size - M_BLOCK;
		m->length = 2 * M_BLOCK;
	} else if (mode_is("addr-overflow")) {
		m->addr = ~(M_BLOCK - 1);
		m->length = 2 * M_BLOCK;
	} else if (mode_is("misaligned-offset")) {
		m->offset = base - 512;
		m->length = 2 * M_BLOCK;
	} else if (mode_is("misaligned-length")) {
		m->length = M_BLOCK + 512;
	} else if (mode_is("zero-length")) {
		m->length = 0;
	} else if (mode_is("bad-type")) {
		m->type = 9;
	} else if (mode_is("bad-flags")) {
		m->flags = 0x8000;
	} else if (mode_is("not-covering")) {
		m->offset = base + M_BLOCK;
	} else if (mode_is("unregistered-dev")) {
		m->dev = s.dev_id + 100;
	} else if (mode_is("closed-dev")) {
		m->dev = s.closed_id;
	} else if (mode_is("dev-on-hole")) {
		m->type = FUSE_IOMAP_TYPE_HOLE;
		m->addr = FUSE_IOMAP_NULL_ADDR;
	} else if (mode_is("write-ro")) {
		out.write = (struct fuse_iomap_io){ base, M_BLOCK, 2 * M_MIB,
						    FUSE_IOMAP_TYPE_MAPPED, 0, s.dev_id };
	} else if (mode_is("inline") || mode_is("delalloc")) {
		m->type = mode_is("inline") ? FUSE_IOMAP_TYPE_INLINE : FUSE_IOMAP_TYPE_DELALLOC;
		m->addr = FUSE_IOMAP_NULL_ADDR;
		m->dev = 0;
	}
	reply(unique, 0, &out, sizeof(out));
}

/* Classic FUSE_READ: the server reads the device itself. */
static void do_read(uint64_t unique, uint64_t ino, const struct fuse_read_in *in)
{
	const struct m_file *f = m_by_ino(ino);
	static uint8_t buf[128 * 1024];
	uint64_t len = in->size;

	if (!f)
		return (void)reply(unique, EISDIR, NULL, 0);
	if (len > sizeof(buf))
		len = sizeof(buf);
	if (in->offset >= f->size)
		len = 0;
	else if (len > f->size - in->offset)
		len = f->size - in->offset;
	for (uint64_t i = 0; i < len; i++) {
		const struct m_extent *e = m_find(f, in->offset + i);
		uint64_t n = 1;

		buf[i] = 0;
		if (e && e->type == M_MAPPED) {
			n = e->off + e->len - (in->offset + i);
			if (n > len - i)
				n = len - i;
			if (pread(s.dev_fd, buf + i, n, e->addr + in->offset + i - e->off) != (ssize_t)n)
				return (void)reply(unique, EIO, NULL, 0);
		}
		i += n - 1;
	}
	reply(unique, 0, buf, len);
}

static void serve(void)
{
	static uint8_t buf[256 * 1024 + 4096];
	struct fuse_entry_out eo;
	struct fuse_attr_out ao;
	struct fuse_open_out oo;

	for (;;) {
		struct pollfd pfd = { .fd = s.fuse_fd, .events = POLLIN };
		struct fuse_in_header *ih = (void *)buf;
		void *arg = buf + sizeof(*ih);
		ssize_t n;

		send_deferred();
		if (wd_timeout_ms() >= 0 && poll(&pfd, 1, wd_timeout_ms()) == 0)
			continue;
		n = read(s.fuse_fd, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (n < 0) {
			if (errno != ENODEV)
				perror("server: read /dev/fuse");
			fz_flush_log();
			exit(errno == ENODEV ? 0 : 1);
		}
		if ((size_t)n < sizeof(*ih))
			exit(1);
		switch (ih->opcode) {
		case FUSE_LOOKUP: {
			const struct m_file *f = ih->nodeid == 1 ? m_lookup(arg) : NULL;

			if (ih->nodeid == 1 && !strcmp(arg, M_W_NAME) && s.iomap) {
				memset(&eo, 0, sizeof(eo));
				eo.nodeid = M_W_INO;
				eo.entry_valid = eo.attr_valid = 3600;
				if (s.forget_w)
					eo.entry_valid = 0;
				fill_attr(&eo.attr, M_W_INO);
				reply(ih->unique, 0, &eo, sizeof(eo));
				break;
			}
			if (!f) {
				reply(ih->unique, ENOENT, NULL, 0);
				break;
			}
			memset(&eo, 0, sizeof(eo));
			eo.nodeid = f->ino;
			eo.entry_valid = eo.attr_valid = 3600;
			fill_attr(&eo.attr, f->ino);
			reply(ih->unique, 0, &eo, sizeof(eo));
			break;
		}
		case FUSE_GETATTR:
			memset(&ao, 0, sizeof(ao));
			ao.attr_valid = 3600;
			fill_attr(&ao.attr, ih->nodeid);
			reply(ih->unique, 0, &ao, sizeof(ao));
			break;
		case FUSE_OPEN:
			/* O_TRUNC reaches us with FUSE_ATOMIC_O_TRUNC */
			if (ih->nodeid == M_W_INO &&
			    (((struct fuse_open_in *)arg)->flags & O_TRUNC)) {
				if (s.verbose)
					fprintf(stderr, "server: open O_TRUNC\n");
				wf_truncate(0);
			}
			/* fall through */
		case FUSE_OPENDIR:
			memset(&oo, 0, sizeof(oo));
			reply(ih->unique, 0, &oo, sizeof(oo));
			break;
		case FUSE_SETATTR:
			do_setattr(ih->unique, ih->nodeid, arg);
			break;
		case FUSE_FALLOCATE: {
			const struct fuse_fallocate_in *in = arg;

			if (s.verbose)
				fprintf(stderr, "server: fallocate ino %llu mode 0x%x %llu +%llu\n",
					(unsigned long long)ih->nodeid, in->mode,
					(unsigned long long)in->offset,
					(unsigned long long)in->length);
			reply(ih->unique, ih->nodeid == M_W_INO ?
			      wf_fallocate(in->mode, in->offset, in->length) : EPERM, NULL, 0);
			wd_event(WD_FALLOCATE);
			break;
		}
		case FUSE_FSYNC:
			s.fsyncs++;
			reply(ih->unique, 0, NULL, 0);
			break;
		case FUSE_GETXATTR:
			do_getxattr(ih->unique, ih->nodeid, arg);
			break;
		case FUSE_READ:
			do_read(ih->unique, ih->nodeid, arg);
			break;
		case FUSE_READDIR:
			reply(ih->unique, 0, NULL, 0);
			break;
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
		case FUSE_FLUSH:
		case FUSE_ACCESS:
			reply(ih->unique, 0, NULL, 0);
			break;
		case FUSE_IOMAP_END_OP: {
			const struct fuse_iomap_end_in *in = arg;

			if (s.verbose)
				fprintf(stderr, "server: end ino %llu pos %llu count %llu written %lld type %u\n",
					(unsigned long long)in->attr_ino, (unsigned long long)in->pos,
					(unsigned long long)in->count, (long long)in->written,
					in->map.type);
			s.ends++;
			reply(ih->unique, 0, NULL, 0);
			break;
		}
		case FUSE_IOMAP_IOEND_OP:
			do_ioend(ih->unique, ih->nodeid, arg);
			break;
		case FUSE_IOMAP_BEGIN_OP:
			do_iomap_begin(ih->unique, ih->nodeid, arg);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		case FUSE_SYNCFS:
			/* nothing of ours to persist: the flush is the kernel's */
			s.syncfs++;
			reply(ih->unique, 0, NULL, 0);
			break;
		case FUSE_COPY_FILE_RANGE:
			/* the kernel copies iomap files itself: count the asks */
			s.copies++;
			reply(ih->unique, ENOSYS, NULL, 0);
			break;
		case FUSE_DESTROY:
			do_destroy();
			reply(ih->unique, 0, NULL, 0);
			fz_flush_log();
			exit(0);
		default:
			reply(ih->unique, ENOSYS, NULL, 0);
		}
	}
}

/* Mount as a libfuse server does when it is not root: the setuid
 * fusermount3 opens /dev/fuse, mounts and passes the fd back over the
 * socket named by _FUSE_COMMFD. */
static int fusermount(const char *mnt)
{
	char ctl[CMSG_SPACE(sizeof(int))], env[32], byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int sv[2], st, fd = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(sv[0]);
		snprintf(env, sizeof(env), "%d", sv[1]);
		setenv("_FUSE_COMMFD", env, 1);
		execl("/usr/bin/fusermount3", "fusermount3", "-o",
		      "fsname=iomaptest,subtype=iomaptest", "--", mnt, (char *)NULL);
		perror("server: exec fusermount3");
		_exit(127);
	}
	close(sv[1]);
	if (recvmsg(sv[0], &msg, 0) > 0) {
		cm = CMSG_FIRSTHDR(&msg);
		if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	}
	close(sv[0]);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "server: fusermount3 failed (status 0x%x)\n", st);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "no-mark", no_argument, NULL, 'a' },
		{ "fusermount", no_argument, NULL, 'f' },
		{ "claim-iomap", no_argument, NULL, 'c' },
		{ "status-all", no_argument, NULL, 's' },
		{ "drop-rawio", no_argument, NULL, 'r' },
		{ "user", no_argument, NULL, 'u' },
		{ "no-iomap", no_argument, NULL, 'n' },
		{ "bench", no_argument, NULL, 'b' },
		{ "forget-w", no_argument, NULL, 'g' },
		{ "stale-tail", no_argument, NULL, 't' },
		{ "blksize", required_argument, NULL, 'k' },
		{ "late-dev", required_argument, NULL, 'l' },
		{ "fuzz", required_argument, NULL, 'z' },
		{ "fuzz-log", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	char mopts[256];
	int c, p[2];

	s.blksize = M_BLOCK;
	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			for (s.mode = 0; s.mode < (int)NMODES && strcmp(modes[s.mode], optarg); s.mode++)
				;
			if (s.mode == NMODES)
				usage();
			break;
		case 'a': s.no_mark = true; break;
		case 'f': s.fusermount = s.user = s.no_mark = true; break;
		case 'c': s.claim_iomap = true; break;
		case 's': s.status_all = true; break;
		case 'r': s.drop_rawio = true; break;
		case 'u': s.user = true; break;
		case 'n': s.no_iomap = true; break;
		case 'b': s.bench = true; break;
		case 'g': s.forget_w = true; break;
		case 't': s.stale_tail = true; break;
		case 'k': s.blksize = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'l': s.late_dev = optarg; break;
		case 'z': s.fuzz_seed = strtoull(optarg, NULL, 0); break;
		case 'L': s.fuzz_log = optarg; break;
		case 'v': s.verbose = true; break;
		default: usage();
		}
	}
	if (argc - optind != 2)
		usage();

	s.fuse_fd = s.fusermount ? -1 : open("/dev/fuse", O_RDWR | O_CLOEXEC);
	s.dev_fd = open(argv[optind],
			(mode_is("write-ro") || mode_is("bw-ro") ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if ((!s.fusermount && s.fuse_fd < 0) || s.dev_fd < 0 ||
	    ioctl(s.dev_fd, BLKGETSIZE64, &s.dev_size)) {
		perror("server: open /dev/fuse or the device");
		return 1;
	}
	if (s.bench && s.dev_size < 768 * M_MIB) {
		fprintf(stderr, "server: --bench needs a device of 768 MiB or more\n");
		return 1;
	}
	if (s.bench ? wf_init(256 * M_MIB, 512 * M_MIB, 768 * M_MIB)
		    : wf_init(M_W_MAX, M_ALLOC_BASE, M_DEV_SIZE)) {
		fprintf(stderr, "server: no memory\n");
		return 1;
	}
	if (s.stale_tail && stale_tail())
		return 1;
	/* the times of "w" that the last server left */
	if (s.dev_size >= DESTROY_MARK_ADDR + M_BLOCK) {
		static uint8_t blk[M_BLOCK];

		if (pread(s.dev_fd, blk, M_BLOCK, DESTROY_MARK_ADDR) == (ssize_t)M_BLOCK &&
		    !memcmp(blk, DESTROY_MARK, sizeof(DESTROY_MARK)))
			wt_load(blk, &s.w_mtime, &s.w_ctime);
	}
	/* As the helper does: the kernel refuses the mark where iomap is
	 * off (EOPNOTSUPP), or on a kernel without the ioctl (ENOTTY) */
	s.mark = "none";
	if (!s.no_mark) {
		int r = ioctl(s.fuse_fd, FUSE_DEV_IOC_ADD_IOMAP);

		s.mark = !r ? "ok" : errno == EOPNOTSUPP ? "EOPNOTSUPP" :
			 errno == ENOTTY ? "ENOTTY" : NULL;
		if (!s.mark)
			return perror("server: FUSE_DEV_IOC_ADD_IOMAP"), 1;
	}
	if (s.drop_rawio && drop_rawio()) {
		perror("server: drop CAP_SYS_RAWIO");
		return 1;
	}
	snprintf(mopts, sizeof(mopts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 s.fuse_fd);
	if (!s.fusermount &&
	    mount("iomaptest", argv[optind + 1], "fuse.iomaptest", MS_NOSUID | MS_NODEV, mopts)) {
		perror("server: mount");
		return 1;
	}
	if (pipe(p))
		return 1;
	switch (fork()) {
	case -1:
		return 1;
	case 0:
		close(p[0]);
		/* let $(iomap-test-server ...) in a shell see EOF when the parent exits */
		c = open("/dev/null", O_RDWR);
		if (c < 0 || dup2(c, 1) < 0 || (!s.verbose && dup2(c, 2) < 0))
			_exit(1);
		close(c);
		if (s.user && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			       setresuid(65534, 65534, 65534))) {
			perror("server: drop to nobody");
			_exit(1);
		}
		if (s.fusermount) {
			s.fuse_fd = fusermount(argv[optind + 1]);
			if (s.fuse_fd < 0)
				_exit(1);
		}
		/* INIT is the first request; do_init reports on p[1] */
		for (;;) {
			static uint8_t buf[256 * 1024 + 4096];
			ssize_t n = read(s.fuse_fd, buf, sizeof(buf));
			struct fuse_in_header *ih = (void *)buf;

			if (n < (ssize_t)sizeof(*ih))
				_exit(1);
			if (ih->opcode == FUSE_INIT) {
				do_init(ih->unique, (void *)(ih + 1), p[1]);
				if (s.fuzz_seed && fz_start(s.fuzz_seed, s.fuse_fd, s.dev_size,
								s.fuzz_log) < 0) {
					perror("iomap-test-server: --fuzz");
					_exit(1);
				}
				break;
			}
			reply(ih->unique, EIO, NULL, 0);
		}
		serve();
		_exit(0);
	}
	close(p[1]);
	char line[64] = "";
	ssize_t n = read(p[0], line, sizeof(line) - 1);

	if (n <= 0) {
		fprintf(stderr, "server: child failed before INIT was answered\n");
		return 1;
	}
	fputs(line, stdout);
	return 0;
}
