/* server/data.c: file contents through libext2fs file handles (extents,
 * indirect blocks and inline data alike). A handle lives for one call only:
 * libext2fs handles cache the inode, so long-lived ones would go stale. */
#include "ops.h"

#include <errno.h>

static int close_file(struct ec_ctx *c, ext2_ino_t ino, ext2_file_t f, int rc)
{
	errcode_t err = ext2fs_file_close(f);

	return rc ? rc : ec_errno(c, err, ino, "file_close");
}

int ec_read_data(struct ec_ctx *c, ext2_ino_t ino, void *buf, uint64_t len, uint64_t off,
		 uint64_t *got)
{
	ext2_file_t f;
	errcode_t err = ext2fs_file_open2(c->fs, ino, NULL, 0, &f);
	int rc = 0;

	*got = 0;
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

int ec_write_data(struct ec_ctx *c, ext2_ino_t ino, const void *buf, uint64_t len, uint64_t off)
{
	ext2_file_t f;
	uint64_t done = 0;
	errcode_t err = ext2fs_file_open2(c->fs, ino, NULL, EXT2_FILE_WRITE, &f);
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
	return close_file(c, ino, f, rc);
}

int ec_truncate(struct ec_ctx *c, ext2_ino_t ino, uint64_t size)
{
	ext2_file_t f;
	errcode_t err = ext2fs_file_open2(c->fs, ino, NULL, EXT2_FILE_WRITE, &f);

	if (err)
		return ec_errno(c, err, ino, "file_open");
	err = ext2fs_file_set_size2(f, size);
	return close_file(c, ino, f, err ? ec_errno(c, err, ino, "truncate") : 0);
}
