/* server/ops_space.c: FUSE fallocate (allocate, KEEP_SIZE, PUNCH_HOLE,
 * ZERO_RANGE) and lseek (SEEK_DATA, SEEK_HOLE). Unwritten extents read as
 * zeros and count as holes, as in the kernel's ext4. */
#include "map.h"
#include "ops.h"

#include <errno.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes zeros over [off, end) (a part of one block). */
static int zero_bytes(struct ec_ctx *c, ext2_ino_t ino, uint64_t off, uint64_t end)
{
	char *z;
	int rc;

	if (end <= off)
		return 0;
	z = calloc(1, end - off);
	if (!z)
		return ENOMEM;
	rc = ec_write_data(c, ino, z, end - off, off);
	free(z);
	return rc;
}

/* Zeros [off, end) of a file of size size: whole blocks of the range are
 * deallocated, past EOF too (ext4 frees preallocated blocks there), and the
 * partial blocks at either end are written with zeros up to EOF. iomap files:
 * the kernel zeroes those through its page cache, the server must not touch
 * their data; the block holding EOF is then freed when the range covers all
 * of it, or its bytes below EOF would keep their data on the device. */
static int punch(struct ec_ctx *c, ext2_ino_t ino, const ec_inode *in, uint64_t off,
		 uint64_t end, uint64_t size)
{
	uint64_t bs = c->fs->blocksize;
	uint64_t first = (off + bs - 1) / bs, last = end / bs; /* whole blocks [first, last) */
	bool data = !ec_iomap_file(c, in);
	errcode_t err;
	int rc = 0;

	if (last > 1ULL << 32)
		last = 1ULL << 32;	/* extent trees map 32-bit logical blocks */
	if (end <= off || (off >= size && first >= last))
		return 0;
	if (first >= last)
		return data ? zero_bytes(c, ino, off, end < size ? end : size) : 0;
	if (data)
		rc = zero_bytes(c, ino, off, first * bs < size ? first * bs : size);
	if (!rc && data && last * bs < size)
		rc = zero_bytes(c, ino, last * bs, end < size ? end : size);
	if (rc)
		return rc;
	err = ext2fs_punch(c->fs, ino, NULL, NULL, first, last - 1);
	return err ? ec_errno(c, err, ino, "punch") : 0;
}

static int allocate(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, uint64_t off, uint64_t end)
{
	uint64_t bs = c->fs->blocksize, first = off / bs, last = (end + bs - 1) / bs;
	return ec_map_fill(c, ino, in, first, last - first, true);
}

static int do_fallocate(struct ec_ctx *c, ext2_ino_t ino, int mode, uint64_t off, uint64_t len)
{
	uint64_t end = off + len, size;
	ec_inode in;
	int rc = ec_read_inode(c, ino, &in);

	if (rc)
		return rc;
	if (!LINUX_S_ISREG(in.i_mode))
		return LINUX_S_ISDIR(in.i_mode) ? EISDIR : ENODEV;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		return EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && (mode & FALLOC_FL_ZERO_RANGE))
		return EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return EOPNOTSUPP;
	if (!(in.i_flags & EXT4_EXTENTS_FL) && !(mode & FALLOC_FL_PUNCH_HOLE))
		return EOPNOTSUPP; /* as ext4 does for block-mapped files */
	if (end < off || end > (1ULL << 60))
		return EFBIG;
	size = ec_isize(&in);
	if (mode & FALLOC_FL_PUNCH_HOLE)
		rc = punch(c, ino, &in, off, end, size);
	else if (mode & FALLOC_FL_ZERO_RANGE) {
		rc = punch(c, ino, &in, off, end, size);
		if (!rc)	/* the punch wrote the inode: read it again */
			rc = ec_read_inode(c, ino, &in);
		if (!rc)
			rc = allocate(c, ino, &in, off, end);
	} else {
		rc = allocate(c, ino, &in, off, end);
	}
	if (!rc && !(mode & FALLOC_FL_KEEP_SIZE) && end > size)
		rc = ec_truncate(c, ino, end);
	return rc ? rc : ec_touch(c, ino, true);
}

void ec_op_fallocate(struct ec_req *req, uint64_t ino, int mode, off_t offset, off_t length,
		     struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);

	(void)fi;
	EC_CHECK_RW(c, req);
	if (offset < 0 || length <= 0) {
		ec_reply_err(req, EINVAL);
		return;
	}
	ec_reply_err(req, do_fallocate(c, ec_ino(ino), mode, (uint64_t)offset, (uint64_t)length));
}

/* Work one SEEK_DATA/SEEK_HOLE may do, in block lookups: a block map is
 * looked up block by block (bmap.c, at most 1024 per run; a hole skips
 * whole empty indirect blocks), an extent tree once per run. A hostile
 * file of many short runs would otherwise take hours. */
#define SEEK_BUDGET	(64 * 1024)

/* Neither layout maps a logical block past 2^32: all hole from there. */
#define MAPPED_BLOCKS	(1ULL << 32)

/* SEEK_DATA/SEEK_HOLE in an extent- or block-mapped file, run by run
 * (map.c); unwritten blocks are a hole. When the budget is spent the rest
 * of the file counts as data (SEEK_DATA) and the next hole is its end
 * (SEEK_HOLE), as lseek(2) allows. */
static int seek_runs(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, uint64_t off, int whence,
		     uint64_t *res)
{
	uint64_t bs = c->fs->blocksize, size = ec_isize(in), spent = 0;
	bool bmap = !(in->i_flags & EXT4_EXTENTS_FL);
	blk64_t b = off / bs;

	for (;;) {
		struct ec_map m = { .lblk = b, .len = 1, .state = EC_MAP_HOLE };
		int rc = b < MAPPED_BLOCKS ? ec_map_find(c, ino, in, b, &m) : 0;

		if (rc)
			return rc;
		if ((m.state == EC_MAP_WRITTEN) == (whence == SEEK_DATA)) {
			*res = b * bs > off ? b * bs : off;
			if (*res > size)
				*res = size;
			return 0;
		}
		if (b >= MAPPED_BLOCKS) {
			*res = size;
			return ENXIO; /* SEEK_DATA in the hole that never ends */
		}
		spent += bmap && m.len < 1024 ? m.len : bmap ? 1024 : 1;
		b = m.lblk + m.len;
		if (b * bs >= size || spent >= SEEK_BUDGET) {
			*res = whence == SEEK_DATA && b * bs < size ? b * bs : size;
			return whence == SEEK_DATA && b * bs >= size ? ENXIO : 0;
		}
	}
}

static int do_lseek(struct ec_ctx *c, ext2_ino_t ino, uint64_t off, int whence, uint64_t *res)
{
	uint64_t size;
	ec_inode in;
	int rc = ec_read_inode(c, ino, &in);

	if (rc)
		return rc;
	size = ec_isize(&in);
	if (off >= size)
		return ENXIO;
	if (in.i_flags & EXT4_INLINE_DATA_FL) {
		*res = whence == SEEK_DATA ? off : size;
		return 0;
	}
	return seek_runs(c, ino, &in, off, whence, res);
}

void ec_op_lseek(struct ec_req *req, uint64_t ino, off_t off, int whence, struct ec_file *fi)
{
	struct ec_ctx *c = ec_req_ctx(req);
	uint64_t res = 0;
	int rc;

	(void)fi;
	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		rc = EINVAL;
	else if (off < 0)
		rc = ENXIO;
	else
		rc = do_lseek(c, ec_ino(ino), (uint64_t)off, whence, &res);
	if (rc)
		ec_reply_err(req, rc);
	else
		ec_reply_lseek(req, (off_t)res);
}
