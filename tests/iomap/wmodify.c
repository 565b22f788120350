/* wmodify.c: the checks of wmodify.h. After every change, w is compared with
 * the shadow through the page cache, then cold (fsync, posix_fadvise
 * DONTNEED), and the server's own size ("user.iomap.state") must agree. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wmodify.h"

/* w as the shadow says, cached and then cold; sizes of kernel and server */
static bool verify(const struct wshadow *sh, int fd, const char *what)
{
	char label[64];
	struct stat st;
	long long ssize;

	snprintf(label, sizeof(label), "%s, cached", what);
	if (!sh_check_file(sh, fd, label))
		return false;
	if (fstat(fd, &st) || (uint64_t)st.st_size != sh->size)
		return fail("%s: size %lld, want %llu", what, (long long)st.st_size,
			    (unsigned long long)sh->size);
	if (fsync(fd))
		return fail("%s: fsync: %s", what, strerror(errno));
	ssize = server_state(fd, "size");
	if (ssize != (long long)sh->size)
		return fail("%s: the server's size is %lld, want %llu", what, ssize,
			    (unsigned long long)sh->size);
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return fail("%s: fadvise: %s", what, strerror(errno));
	snprintf(label, sizeof(label), "%s, cold", what);
	return sh_check_file(sh, fd, label);
}

static bool open_rw(const char *mnt, int *fd)
{
	*fd = open_w(mnt, O_RDWR);
	return *fd >= 0 || fail("open w: %s", strerror(errno));
}

/* Writes through a shared mapping: into written blocks, into a hole inside
 * the file, up to EOF; scribbles past EOF in the last page must vanish. */
bool check_mmap_write(struct wshadow *sh, const char *mnt)
{
	const uint64_t size = sh->size, maplen = (size + 4095) & ~4095ULL;
	const struct { uint64_t off, len; } writes[] = {
		{ 1000, 3000 }, { 160 << 10, 6000 }, { size - 700, 700 },
	};
	uint8_t tmp[8192], *p;
	int fd;
	bool ok = true;

	if (!open_rw(mnt, &fd))
		return false;
	p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return fail("mmap w shared writable: %s", strerror(errno));
	}
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		sh_pattern(tmp, writes[i].off, writes[i].len, 20 + (int)i);
		memcpy(p + writes[i].off, tmp, writes[i].len);
		sh_write(sh, writes[i].off, tmp, writes[i].len);
	}
	memset(p + size, 0xee, maplen - size);
	if (msync(p, maplen, MS_SYNC))
		ok = fail("msync: %s", strerror(errno));
	else
		ok = sh_compare(sh, p, 0, size, "through the mapping");
	munmap(p, maplen);
	ok = ok && verify(sh, fd, "after mmap writes");
	close(fd);
	return ok;
}

static bool truncate_to(struct wshadow *sh, int fd, uint64_t size)
{
	char what[64];

	if (ftruncate(fd, size))
		return fail("ftruncate(%llu): %s", (unsigned long long)size, strerror(errno));
	sh_resize(sh, size);
	snprintf(what, sizeof(what), "after truncate to %llu", (unsigned long long)size);
	return verify(sh, fd, what);
}

/* Up past what the mmap check scribbled, down into a written block (its
 * tail must be zeroed on the device: the next step reads it cold), up. */
bool check_truncate(struct wshadow *sh, const char *mnt)
{
	int fd;
	bool ok;

	if (!open_rw(mnt, &fd))
		return false;
	ok = truncate_to(sh, fd, sh->size + 10000) && truncate_to(sh, fd, 135000) &&
	     truncate_to(sh, fd, 200000);
	close(fd);
	return ok;
}

static bool fallocate_w(struct wshadow *sh, int fd, int mode, uint64_t off, uint64_t len)
{
	char what[96];

	if (fallocate(fd, mode, off, len))
		return fail("fallocate(0x%x, %llu, %llu): %s", mode, (unsigned long long)off,
			    (unsigned long long)len, strerror(errno));
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		sh_zero(sh, off, len);
	if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > sh->size)
		sh_resize(sh, off + len);
	snprintf(what, sizeof(what), "after fallocate(0x%x, %llu, %llu)", mode,
		 (unsigned long long)off, (unsigned long long)len);
	return verify(sh, fd, what);
}

/* Allocation growing the file and past EOF, an unaligned hole punch and
 * zeroed range inside data (the server frees a whole block), a zeroed range
 * that grows the file. */
bool check_fallocate(struct wshadow *sh, const char *mnt)
{
	long long before, after;
	int fd;
	bool ok;

	if (!open_rw(mnt, &fd))
		return false;
	ok = fallocate_w(sh, fd, 0, sh->size, 50000) &&
	     fallocate_w(sh, fd, FALLOC_FL_KEEP_SIZE, 300000, 8192);
	before = server_state(fd, "blocks");
	ok = ok && fallocate_w(sh, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2000, 10000);
	after = server_state(fd, "blocks");
	if (ok && (before < 0 || after != before - 1))
		ok = fail("the server has %lld blocks after the punch, %lld before", after, before);
	ok = ok && fallocate_w(sh, fd, FALLOC_FL_ZERO_RANGE, 30000, 9000) &&
	     fallocate_w(sh, fd, FALLOC_FL_ZERO_RANGE, sh->size - 1000, 6000);
	close(fd);
	return ok;
}

/* Flush requests completed by the device, from /sys/block/NAME/stat */
static long long dev_flushes(const char *dev)
{
	char path[256], *copy = strdup(dev);
	unsigned long long v[17];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", basename(copy));
	free(copy);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < 17 && fscanf(f, "%llu", &v[n]) == 1)
		n++;
	fclose(f);
	return n == 17 ? (long long)v[15] : -1;
}

/* One way to make w durable: the server must hear FUSE_FSYNC, the device
 * must see a cache flush. */
static bool durable(int fd, const char *dev, const char *how, int (*sync)(int))
{
	long long f0 = dev_flushes(dev), s0 = server_state(fd, "fsyncs");

	if (sync(fd))
		return fail("%s: %s", how, strerror(errno));
	if (server_state(fd, "fsyncs") != s0 + 1)
		return fail("%s: the server saw %lld FUSE_FSYNC, want %lld", how,
			    server_state(fd, "fsyncs"), s0 + 1);
	if (f0 < 0 || dev_flushes(dev) <= f0)
		return fail("%s: the device completed no flush (%lld, then %lld)", how, f0,
			    dev_flushes(dev));
	return true;
}

static int fsync_datasync(int fd)
{
	return fdatasync(fd);
}

/* A pure overwrite gives the server nothing to write: the flush still
 * happens, for fsync, fdatasync and an O_DSYNC write. */
bool check_fsync(struct wshadow *sh, const char *mnt, const char *dev)
{
	uint8_t buf[4096];
	int fd;
	bool ok;

	if (!open_rw(mnt, &fd))
		return false;
	sh_pattern(buf, 0, sizeof(buf), 30);
	ok = sh_pwrite(sh, fd, buf, 0, sizeof(buf)) && durable(fd, dev, "fsync", fsync);
	sh_pattern(buf, 8192, sizeof(buf), 31);
	ok = ok && sh_pwrite(sh, fd, buf, 8192, sizeof(buf)) &&
	     durable(fd, dev, "fdatasync", fsync_datasync);
	close(fd);
	if (ok) {
		long long f0 = dev_flushes(dev);

		fd = open_w(mnt, O_RDWR | O_DSYNC);
		sh_pattern(buf, 16384, sizeof(buf), 32);
		ok = fd >= 0 ? sh_pwrite(sh, fd, buf, 16384, sizeof(buf))
			     : fail("open w O_DSYNC: %s", strerror(errno));
		if (ok && dev_flushes(dev) <= f0)
			ok = fail("O_DSYNC write: the device completed no flush");
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

/* After all of the above, w on the raw device; the server's blocks convert */
bool check_modify_raw(const struct wshadow *sh, const char *mnt, const char *dev)
{
	int fd = open_w(mnt, O_RDONLY);
	int dfd = open(dev, O_RDONLY | O_DIRECT);
	long long holes;
	bool ok;

	if (fd < 0 || dfd < 0)
		ok = fail("open w or %s: %s", dev, strerror(errno));
	else if (!(ok = sh_check_raw(sh, fd, dfd, NULL)))
		;
	else if ((holes = server_state(fd, "ioend-on-hole")) != 0)
		ok = fail("the server got %lld IOENDs for blocks it does not have", holes);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return ok;
}

/* O_TRUNC: the server frees every block in FUSE_OPEN; w is empty */
bool check_otrunc(struct wshadow *sh, const char *mnt)
{
	int fd = open_w(mnt, O_RDWR | O_TRUNC);
	uint8_t buf[512];
	bool ok;

	if (fd < 0)
		return fail("open w O_TRUNC: %s", strerror(errno));
	sh_resize(sh, 0);
	ok = verify(sh, fd, "after O_TRUNC");
	if (ok && server_state(fd, "blocks") != 0)
		ok = fail("the server still has %lld blocks", server_state(fd, "blocks"));
	sh_pattern(buf, 5000, sizeof(buf), 40);
	ok = ok && sh_pwrite(sh, fd, buf, 5000, sizeof(buf)) &&
	     verify(sh, fd, "after a write past O_TRUNC");
	close(fd);
	return ok;
}

bool check_copy_range(struct wshadow *sh, const char *mnt)
{
	const size_t len = 20000;
	int ffd = open_file(mnt, "f", O_RDONLY), fd = open_w(mnt, O_RDWR);
	loff_t in = 4096 + 100, out = (loff_t)sh->size + 1000;
	uint64_t at = (uint64_t)out;
	uint8_t *buf = malloc(len);
	bool ok = ffd >= 0 && fd >= 0 && buf;
	ssize_t n;

	if (!ok)
		ok = fail("open f and w: %s", strerror(errno));
	if (ok && pread(ffd, buf, len, in) != (ssize_t)len)
		ok = fail("read f: %s", strerror(errno));
	if (ok) {
		n = copy_file_range(ffd, &in, fd, &out, len, 0);
		if (n != (ssize_t)len)
			ok = fail("copy_file_range(f -> w, %zu @ %llu) = %zd: %s", len,
				  (unsigned long long)at, n, n < 0 ? strerror(errno) : "short");
	}
	if (ok) {
		sh_write(sh, at, buf, len);
		ok = verify(sh, fd, "after copy_file_range") && drop_caches() == 0 &&
		     sh_check_file(sh, fd, "after copy_file_range, cold");
	}
	if (ok && server_state(fd, "copies") != 0)
		ok = fail("the server was asked to copy (FUSE_COPY_FILE_RANGE %lld times)",
			  server_state(fd, "copies"));
	free(buf);
	if (ffd >= 0)
		close(ffd);
	if (fd >= 0)
		close(fd);
	return ok;
}
