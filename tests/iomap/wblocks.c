/* wblocks.c: iomap-check's checks of the block count of "w" (wblocks.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "wblocks.h"
#include "wshadow.h"

#define SECTORS_PER_BLOCK	((long long)(M_BLOCK / 512))

/* fstat(fd) of w; its st_blocks must be what the server has allocated */
static bool blocks_agree(int fd, const char *when, long long *st_blocks)
{
	struct stat st;
	long long blocks;

	if (fstat(fd, &st))
		return fail("fstat w %s: %s", when, strerror(errno));
	blocks = server_state(fd, "blocks");
	if (blocks < 0)
		return fail("user.iomap.state of w has no blocks");
	if ((long long)st.st_blocks != blocks * SECTORS_PER_BLOCK)
		return fail("%s: st_blocks %lld, but the server has allocated %lld blocks (st_blocks %lld)",
			    when, (long long)st.st_blocks, blocks, blocks * SECTORS_PER_BLOCK);
	*st_blocks = st.st_blocks;
	return true;
}

static bool fill_write(int fd, uint64_t off, size_t len)
{
	uint8_t *buf;
	ssize_t n;

	if (posix_memalign((void **)&buf, 4096, len))
		return fail("no memory");
	sh_pattern(buf, off, len, 1);
	n = pwrite(fd, buf, len, off);
	free(buf);
	if (n != (ssize_t)len)
		return fail("pwrite(%zu @ %llu) of w: %s", len, (unsigned long long)off,
			    n < 0 ? strerror(errno) : "short write");
	return true;
}

bool check_blocks_write(const char *mnt, char *detail, size_t len)
{
	int fd = open_w(mnt, O_RDWR);
	long long b0 = -1, b1 = -1, b2 = -1;
	bool ok;

	if (fd < 0)
		return fail("open w: %s", strerror(errno));
	/* the kernel has w's attributes cached now (attr_valid 3600) */
	ok = blocks_agree(fd, "before writing", &b0);
	if (ok && b0 != 0)
		ok = fail("w is not empty: st_blocks %lld", b0);
	ok = ok && fill_write(fd, 0, 256 << 10) &&
	     blocks_agree(fd, "after a 256 KiB buffered write", &b1);
	if (ok && b1 <= 0)
		ok = fail("st_blocks %lld after a 256 KiB buffered write", b1);
	if (ok && fsync(fd))
		ok = fail("fsync w: %s", strerror(errno));
	ok = ok && blocks_agree(fd, "after fsync", &b2);
	close(fd);
	if (ok)
		snprintf(detail, len, "st_blocks %lld after write, %lld after fsync", b1, b2);
	return ok;
}

bool check_blocks_direct(const char *mnt, char *detail, size_t len)
{
	int fd = open_w(mnt, O_RDWR);
	int dfd = open_w(mnt, O_RDWR | O_DIRECT);
	long long b0 = -1, b1 = -1;
	struct stat st;
	bool ok = true;

	if (fd < 0 || dfd < 0)
		ok = fail("open w: %s", strerror(errno));
	if (ok && ftruncate(fd, 1 << 20))
		ok = fail("ftruncate w to 1 MiB: %s", strerror(errno));
	ok = ok && blocks_agree(fd, "after ftruncate", &b0) &&
	     fill_write(dfd, 512 << 10, 64 << 10) &&
	     blocks_agree(fd, "after a 64 KiB O_DIRECT write into a hole", &b1);
	if (ok && b1 != b0 + (64 << 10) / 512)
		ok = fail("st_blocks %lld after a 64 KiB O_DIRECT write into a hole, want %lld",
			  b1, b0 + (64 << 10) / 512);
	if (ok && fstat(fd, &st))
		ok = fail("fstat w: %s", strerror(errno));
	else if (ok && st.st_size != 1 << 20)
		ok = fail("size of w is %lld, want %d", (long long)st.st_size, 1 << 20);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (ok)
		snprintf(detail, len, "st_blocks %lld after ftruncate, %lld after the write", b0, b1);
	return ok;
}
