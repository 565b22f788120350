/* server/data.c: file contents. Reads of extent- and block-mapped files go
 * straight to the device, one transfer per run of blocks (map.c); so do
 * writes of whole blocks of extent-mapped files, after allocating them in
 * one go; everything else goes through libext2fs file handles (extents,
 * indirect blocks and inline data alike).
 * A handle lives for one call only: libext2fs handles cache the inode, so
 * long-lived ones would go stale. */
#include "fdio.h"
#include "map.h"
#include "ops.h"
#include "zone.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Copies n bytes starting at byte inoff of device block pblk into dst;
 * whole blocks move in one transfer, partial ones through a bounce block. */
static int read_run(struct ec_ctx *c, ext2_ino_t ino, blk64_t pblk, uint64_t inoff, uint64_t n,
		    char *dst)
{
	uint64_t bs = c->fs->blocksize, nblk = (inoff + n + bs - 1) / bs;
	errcode_t err = 0;
	char *bounce = NULL;

	int rc = ec_zone_check(c, ino, pblk, nblk);

	if (rc)
		return rc;
	while (!err && n) {
		uint64_t take = bs - inoff < n ? bs - inoff : n;
		if (inoff || take < bs) {
			if (!bounce && !(bounce = malloc(bs)))
				return ENOMEM;
			err = io_channel_read_blk64(c->fs->io, pblk, 1, bounce);
			if (!err)
				memcpy(dst, bounce + inoff, take);
			inoff = 0;
			pblk++;
		} else {
			uint64_t whole = n / bs > (1u << 30) / bs ? (1u << 30) / bs : n / bs;
			take = whole * bs;
			err = io_channel_read_blk64(c->fs->io, pblk, (int)whole, dst);
			pblk += whole;
		}
		dst += take;
		n -= take;
	}
	free(bounce);
	return err ? ec_errno(c, err, ino, "read") : 0;
}

static int read_runs(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, char *buf, uint64_t len,
		     uint64_t off, uint64_t *got)
{
	uint64_t bs = c->fs->blocksize, size = ec_isize(in), pos = off, end;
	int rc = 0;

	*got = 0;
	if (off >= size)
		return 0;
	end = len < size - off ? off + len : size;
	while (!rc && pos < end) {
		struct ec_map m;
		uint64_t run_end;
		rc = ec_map_find(c, ino, in, pos / bs, &m);
		if (rc)
			break;
		run_end = m.lblk + m.len > end / bs ? end : (m.lblk + m.len) * bs;
		if (m.state == EC_MAP_WRITTEN)
			rc = read_run(c, ino, m.pblk, pos % bs, run_end - pos, buf + (pos - off));
		else
			memset(buf + (pos - off), 0, run_end - pos);
		pos = run_end;
	}
	if (!rc)
		*got = end - off;
	return rc;
}

static int close_file(struct ec_ctx *c, ext2_ino_t ino, ext2_file_t f, int rc)
{
	errcode_t err = ext2fs_file_close(f);

	return rc ? rc : ec_errno(c, err, ino, "file_close");
}

int ec_read_data(struct ec_ctx *c, ext2_ino_t ino, void *buf, uint64_t len, uint64_t off,
		 uint64_t *got)
{
	ext2_file_t f;
	ec_inode in;
	errcode_t err;
	int rc = ec_read_inode(c, ino, &in);

	*got = 0;
	if (rc)
		return rc;
	if (!(in.i_flags & EXT4_INLINE_DATA_FL))
		return read_runs(c, ino, &in, buf, len, off, got);
	err = ext2fs_file_open2(c->fs, ino, (struct ext2_inode *)&in, 0, &f);
	if (err)
		return ec_errno(c, err, ino, "file_open");
	err = ext2fs_file_llseek(f, off, EXT2_SEEK_SET, NULL);
	while (!err && *got < len) {
		unsigned int n = 0, want = len - *got > (1u << 30) ? 1u << 30 : (unsigned int)(len - *got);
		err = ext2fs_file_read(f, (char *)buf + *got, want, &n);
		if (!n)
			break;
		*got += n;
	}
	if (err)
		rc = ec_errno(c, err, ino, "file_read");
	return close_file(c, ino, f, rc);
}

/* Writes through a libext2fs file handle (any mapping; sets the size),
 * opened on in; in is read again afterwards, since the handle wrote its own
 * copy (and inline data may have moved into the inode's extra space). */
static int write_file(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, const void *buf,
		      uint64_t len, uint64_t off)
{
	ext2_file_t f;
	uint64_t done = 0;
	errcode_t err = ext2fs_file_open2(c->fs, ino, (struct ext2_inode *)in, EXT2_FILE_WRITE, &f);
	int rc = 0;

	if (err)
		return ec_errno(c, err, ino, "file_open");
	err = ext2fs_file_llseek(f, off, EXT2_SEEK_SET, NULL);
	while (!err && done < len) {
		unsigned int n = 0, want = len - done > (1u << 30) ? 1u << 30 : (unsigned int)(len - done);
		err = ext2fs_file_write(f, (const char *)buf + done, want, &n);
		if (!err && !n)
			err = EXT2_ET_SHORT_WRITE;
		done += n;
	}
	if (err)
		rc = ec_errno(c, err, ino, "file_write");
	rc = close_file(c, ino, f, rc);
	return rc ? rc : ec_read_inode(c, ino, in);
}

/* iomap files: the kernel zeroes the rest of the block that holds the new end
 * through its page cache; the server frees the blocks past that block and
 * sets the size, and never reads or writes their data (the device holds
 * newer data than any copy the server could have read before). */
static int truncate_blocks(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, uint64_t size)
{
	uint64_t bs = c->fs->blocksize;
	errcode_t err = 0;

	/* growing keeps what lies past the old end (fallocated blocks) */
	if (size < ec_isize(in))
		err = ext2fs_punch(c->fs, ino, (struct ext2_inode *)in, NULL, (size + bs - 1) / bs,
				   ~0ULL);
	if (!err)
		err = ext2fs_inode_size_set(c->fs, (struct ext2_inode *)in, size);
	return err ? ec_errno(c, err, ino, "truncate") : ec_write_inode(c, ino, in);
}

int ec_truncate(struct ec_ctx *c, ext2_ino_t ino, uint64_t size)
{
	ext2_file_t f;
	errcode_t err;
	ec_inode in;
	int rc = ec_read_inode(c, ino, &in);

	if (rc)
		return rc;
	if (ec_iomap_file(c, &in))
		return truncate_blocks(c, ino, &in, size);
	err = ext2fs_file_open2(c->fs, ino, NULL, EXT2_FILE_WRITE, &f);
	if (err)
		return ec_errno(c, err, ino, "file_open");
	err = ext2fs_file_set_size2(f, size);
	return close_file(c, ino, f, err ? ec_errno(c, err, ino, "truncate") : 0);
}

/* Whole blocks [fb, fb + n) of an extent-mapped file: allocate what is
 * missing in one call, then one transfer per extent. Unwritten extents go
 * through the file handle, which converts them. in: as in map.h. */
static int write_blocks(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in, const char *data,
			blk64_t fb, blk64_t n)
{
	uint64_t bs = c->fs->blocksize;
	blk64_t lblk = fb;
	int rc = ec_map_fill(c, ino, in, fb, n, false);

	while (!rc && lblk < fb + n) {
		struct ec_map m;
		blk64_t stop;

		rc = ec_map_find(c, ino, in, lblk, &m);
		if (rc)
			break;
		stop = m.lblk + m.len > fb + n ? fb + n : m.lblk + m.len;
		if (m.state == EC_MAP_WRITTEN && !(rc = ec_zone_check(c, ino, m.pblk, stop - lblk))) {
			errcode_t err;

			ec_fdio_direct(c->fs->io, true);	/* file data: not journaled */
			err = io_channel_write_blk64(c->fs->io, m.pblk, (int)(stop - lblk),
						     data + (lblk - fb) * bs);
			ec_fdio_direct(c->fs->io, false);

			rc = err ? ec_errno(c, err, ino, "write") : 0;
		} else if (m.state != EC_MAP_WRITTEN) {
			rc = write_file(c, ino, in, data + (lblk - fb) * bs, (stop - lblk) * bs,
					lblk * bs);
		}
		lblk = stop;
	}
	/* what was allocated or converted joins its neighbours */
	return rc ? rc : ec_map_merge(c, ino, in, fb, n);
}

int ec_write_data(struct ec_ctx *c, ext2_ino_t ino, const void *buf, uint64_t len, uint64_t off)
{
	uint64_t bs = c->fs->blocksize, end = off + len;
	uint64_t fb = (off + bs - 1) / bs, lb = end / bs; /* whole blocks [fb, lb) */
	const char *p = buf;
	ec_inode in;
	int rc = ec_read_inode(c, ino, &in);

	if (rc)
		return rc;
	if (end < off)
		return EFBIG;
	if (!(in.i_flags & EXT4_EXTENTS_FL) || (in.i_flags & EXT4_INLINE_DATA_FL) || lb <= fb ||
	    lb - fb > (1u << 20))
		return write_file(c, ino, &in, buf, len, off);
	if (fb * bs > off)
		rc = write_file(c, ino, &in, p, fb * bs - off, off);
	if (!rc)
		rc = write_blocks(c, ino, &in, p + (fb * bs - off), fb, lb - fb);
	if (!rc && end > lb * bs)
		rc = write_file(c, ino, &in, p + (lb * bs - off), end - lb * bs, lb * bs);
	if (!rc && ec_isize(&in) < end) {
		errcode_t err = ext2fs_inode_size_set(c->fs, (struct ext2_inode *)&in, end);
		rc = err ? ec_errno(c, err, ino, "set_size") : ec_write_inode(c, ino, &in);
	}
	return rc;
}
