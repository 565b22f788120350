/* server/ops_iomap.c: iomap mode (DESIGN.md section 2). The kernel moves file
 * data between the page cache and the device itself; the server registers the
 * device, marks the files it can map, and answers FUSE_IOMAP_BEGIN (where a
 * range of a file is, allocating unwritten blocks for writes) and
 * FUSE_IOMAP_IOEND (the data is on the device: convert the blocks, grow the
 * size), all from map.c. File times are the kernel's: it sends them with
 * FUSE_SETATTR at close, fsync, sync and unmount. FUSE_IOMAP_END comes only to
 * a server that asks for it, and this one never does. Extent-mapped and
 * block-mapped (ext2/ext3) files are iomap files; a block-mapped file's new
 * blocks are zeroed before the kernel hears of them (a block map cannot say
 * "unwritten"). Files iomap cannot describe (inline data) stay classic,
 * inode by inode. */
#include "log.h"
#include "map.h"
#include "ops.h"
#include "zone.h"
#include "../proto/fuse_iomap.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

/* The longest mapping one reply describes, and the most one write allocates. */
#define MAX_MAP_BLOCKS	(1ULL << 30)
#define MAX_ALLOC_BYTES	(64ULL << 20)

void ec_iomap_init(struct ec_ctx *c, uint64_t offered, uint64_t *want, uint32_t *minor)
{
	c->iomap = false;
	if (c->opt.iomap == EC_IOMAP_OFF || !c->iomap_allowed)
		return;
	if (!(offered & FUSE_IOMAP_INIT)) {
		if (c->opt.iomap == EC_IOMAP_ON) {
			ec_log(EC_LOG_ERR, "ext4cell-server: %s: iomap=on, but the kernel does not "
			       "offer FUSE iomap on this connection (fuse.enable_iomap off?)\n",
			       c->devname);
			c->exiting = true;
		}
		return;
	}
	*want |= FUSE_IOMAP_INIT;
	*minor = FUSE_IOMAP_MINOR;
	c->iomap = true;
}

int ec_iomap_start(struct ec_ctx *c)
{
	struct fuse_backing_map map = { .fd = c->dev_fd, .flags = FUSE_BACKING_TYPE_IOMAP };
	int id = ioctl(c->fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &map);

	if (id <= 0) {
		ec_log(EC_LOG_ERR, "ext4cell-server: %s: the kernel refused the device for iomap "
		       "(FUSE_DEV_IOC_BACKING_OPEN): %s\n", c->devname, strerror(errno));
		return -1;
	}
	c->dev_id = (uint32_t)id;
	ec_log(EC_LOG_INFO, "ext4cell-server: %s: iomap mode: the kernel moves file data\n",
	       c->devname);
	return 0;
}

/* Can the kernel map this inode's data through us? */
static bool mappable(const ec_inode *in)
{
	return LINUX_S_ISREG(in->i_mode) &&
	       !(in->i_flags & (EXT4_INLINE_DATA_FL | EXT4_ENCRYPT_FL | EXT4_VERITY_FL));
}

bool ec_iomap_file(struct ec_ctx *c, const ec_inode *in)
{
	return c->iomap && mappable(in);
}

uint32_t ec_attr_flags(struct ec_ctx *c, const ec_inode *in)
{
	return ec_iomap_file(c, in) ? FUSE_ATTR_IOMAP | FUSE_ATTR_EXCLUSIVE : 0;
}

/* The mapping record for run m of a file (block size bs). */
static void to_io(struct ec_ctx *c, const struct ec_map *m, struct fuse_iomap_io *io)
{
	uint64_t bs = c->fs->blocksize, len = m->len < MAX_MAP_BLOCKS ? m->len : MAX_MAP_BLOCKS;

	memset(io, 0, sizeof(*io));
	io->offset = m->lblk * bs;
	io->length = len * bs;
	if (m->state == EC_MAP_HOLE) {
		io->type = FUSE_IOMAP_TYPE_HOLE;
		io->addr = FUSE_IOMAP_NULL_ADDR;
		return;
	}
	io->type = m->state == EC_MAP_WRITTEN ? FUSE_IOMAP_TYPE_MAPPED : FUSE_IOMAP_TYPE_UNWRITTEN;
	io->addr = m->pblk * bs;
	io->dev = c->dev_id;
}

/* The run lblk lies in, from its extent's start (the kernel caches what it
 * is told: a later request anywhere in the extent is then answered without
 * us), at most MAX_MAP_BLOCKS long and always holding lblk, its blocks
 * checked against the filesystem's metadata. */
static int map_at(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk,
		  struct ec_map *m)
{
	int rc = ec_map_whole(c, ino, in, lblk, m);

	if (!rc && lblk - m->lblk >= MAX_MAP_BLOCKS) {
		if (m->state != EC_MAP_HOLE)
			m->pblk += lblk - m->lblk;
		m->len -= lblk - m->lblk;
		m->lblk = lblk;
	}
	if (!rc && m->len > MAX_MAP_BLOCKS)
		m->len = MAX_MAP_BLOCKS;
	if (!rc && m->state != EC_MAP_HOLE)
		rc = ec_zone_check(c, ino, m->pblk, m->len);
	return rc;
}

/* Unwritten blocks from lblk, in hole m, up to the end of the write (whole
 * blocks, at most MAX_ALLOC_BYTES), near the file's other blocks. */
static int allocate(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, blk64_t lblk,
		    const struct ec_map *m, uint64_t end)
{
	uint64_t bs = c->fs->blocksize;
	blk64_t last = (end + bs - 1) / bs, n;

	if (last > m->lblk + m->len)
		last = m->lblk + m->len;
	n = last > lblk ? last - lblk : 1;
	if (n > MAX_ALLOC_BYTES / bs)
		n = MAX_ALLOC_BYTES / bs;
	return ec_map_fill(c, ino, in, lblk, n, true);
}

static void do_begin(struct ec_req *r, ext2_ino_t ino, const struct fuse_iomap_begin_in *in)
{
	struct ec_ctx *c = r->c;
	struct fuse_iomap_begin_out out;
	bool write = in->opflags & FUSE_IOMAP_OP_WRITE;
	blk64_t lblk = in->pos / c->fs->blocksize;
	ec_inode inode;
	struct ec_map m;
	int rc;

	if (write && c->ro)
		return (void)ec_reply_err(r, EROFS);
	if (in->pos >= (1ULL << 32) * c->fs->blocksize)
		return (void)ec_reply_err(r, EFBIG);
	/* one read of the inode for the whole request: map.c keeps it current */
	rc = ec_read_inode(c, ino, &inode);
	if (!rc && !mappable(&inode))
		rc = EINVAL;	/* never marked iomap: no mapping to give */
	if (!rc)
		rc = map_at(c, ino, &inode, lblk, &m);
	if (!rc && write && m.state == EC_MAP_HOLE) {
		rc = allocate(c, ino, &inode, lblk, &m, in->pos + (in->count ? in->count : 1));
		if (!rc)
			rc = map_at(c, ino, &inode, lblk, &m);
		if (!rc && m.state == EC_MAP_HOLE)
			rc = ec_corrupt(c, ino, "allocated blocks are not mapped");
	}
	if (rc)
		return (void)ec_reply_err(r, rc);
	memset(&out, 0, sizeof(out));
	to_io(c, &m, &out.read);
	out.write.type = FUSE_IOMAP_TYPE_PURE_OVERWRITE;	/* same as read */
	if (c->opt.debug)
		ec_log(EC_LOG_DEBUG, "ext4cell-server: iomap begin ino %u pos %llu count %llu op 0x%x: "
		       "type %u offset %llu length %llu addr %llu\n", ino,
		       (unsigned long long)in->pos, (unsigned long long)in->count, in->opflags,
		       out.read.type, (unsigned long long)out.read.offset,
		       (unsigned long long)out.read.length, (unsigned long long)out.read.addr);
	ec_reply_buf(r, &out, sizeof(out));
}

static void do_ioend(struct ec_req *r, ext2_ino_t ino, const struct fuse_iomap_ioend_in *in)
{
	struct ec_ctx *c = r->c;
	uint64_t bs = c->fs->blocksize, end = in->pos + in->written;
	struct fuse_iomap_ioend_out out;
	ec_inode inode;
	int rc;

	if (end < in->pos)
		return (void)ec_reply_err(r, EINVAL);
	if (c->opt.debug)
		ec_log(EC_LOG_DEBUG, "ext4cell-server: iomap ioend ino %u pos %llu written %llu "
		       "flags 0x%x error %d\n", ino, (unsigned long long)in->pos,
		       (unsigned long long)in->written, in->flags, in->error);
	/* a failed write leaves its blocks unwritten: they read as zeroes */
	rc = ec_read_inode(c, ino, &inode);
	if (!rc && !in->error && in->written && (in->flags & FUSE_IOMAP_IOEND_UNWRITTEN))
		rc = ec_map_convert(c, ino, &inode, in->pos / bs,
				    (end + bs - 1) / bs - in->pos / bs);
	/* mtime and ctime are the kernel's: they arrive with FUSE_SETATTR */
	if (!rc && !in->error && in->written && ec_isize(&inode) < end) {
		errcode_t err = ext2fs_inode_size_set(c->fs, (struct ext2_inode *)&inode, end);

		rc = err ? ec_errno(c, err, ino, "set_size") : ec_write_inode(c, ino, &inode);
	}
	if (rc)
		return (void)ec_reply_err(r, rc);
	out.newsize = ec_isize(&inode);
	ec_reply_buf(r, &out, sizeof(out));
}

bool ec_iomap_dispatch(struct ec_req *r, uint32_t op, uint64_t node, const void *p, size_t n)
{
	if (op != FUSE_IOMAP_BEGIN_OP && op != FUSE_IOMAP_END_OP && op != FUSE_IOMAP_IOEND_OP)
		return false;
	if (!r->c->iomap || op == FUSE_IOMAP_END_OP) {
		ec_reply_err(r, ENOSYS);	/* END: never asked for */
		return true;
	}
	if (op == FUSE_IOMAP_BEGIN_OP && n >= sizeof(struct fuse_iomap_begin_in)) {
		struct fuse_iomap_begin_in in;

		memcpy(&in, p, sizeof(in));
		do_begin(r, ec_ino(node), &in);
	} else if (op == FUSE_IOMAP_IOEND_OP && n >= sizeof(struct fuse_iomap_ioend_in)) {
		struct fuse_iomap_ioend_in in;

		memcpy(&in, p, sizeof(in));
		do_ioend(r, ec_ino(node), &in);
	} else {
		ec_reply_err(r, EINVAL);
	}
	return true;
}
