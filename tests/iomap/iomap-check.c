/* iomap-check: guest-side checks for the FUSE iomap tests, against model.h.
 *   iomap-check fill DEVICE      write the device pattern
 *   iomap-check verify MNT       byte-exact reads (buffered, O_DIRECT, mmap),
 *                                FIEMAP, SEEK_DATA/SEEK_HOLE, EOF; one
 *                                "case NAME ok|FAIL: why" line per check
 *   iomap-check expect-error MNT a buffered and an O_DIRECT read of f at 8 KiB
 *                                must both fail; prints the errors seen
 *   iomap-check read MNT         only the buffered and mmap read checks
 *   iomap-check fiemap MNT       prints "fiemap ok" or "fiemap error NAME"
 *   iomap-check xattr FILE NAME  prints the value of the extended attribute
 *                                NAME of FILE, or "error NAME"
 *   iomap-check eperm            FUSE_DEV_IOC_ADD_IOMAP without CAP_SYS_RAWIO
 *                                must fail with EPERM
 *   iomap-check write MNT DEV    O_DIRECT then buffered writes to the empty
 *                                file "w", then byte-exact checks through the
 *                                mount (cold cache) and on DEV at the
 *                                addresses FIEMAP reports
 *                                (write-*), the flags of the requests
 *                                (write-flags), then mmap writes, truncates,
 *                                fallocates, fsync, O_TRUNC (wmodify.c)
 *   iomap-check umount-mmap MNT DEV
 *                                stores through a shared mapping, dirty after
 *                                close and munmap, are on DEV when umount
 *                                returns; the server answered FUSE_DESTROY
 *   iomap-check syncfs MNT DEV   buffered writes are on DEV after syncfs and
 *                                after sync; the server saw FUSE_SYNCFS, the
 *                                device a cache flush (wdurable.c)
 *   iomap-check times MNT        buffered and O_DIRECT writes, ftruncate
 *                                and a store through a shared mapping after
 *                                close each move mtime and ctime of w; fsync
 *                                gives the server the times; prints "times
 *                                M C", the times at the end
 *   iomap-check times-remount MNT M C
 *                                stat and the server show M and C (wtimes.c)
 *   iomap-check blocks MNT DEV   after a buffered write to an empty w, and
 *                                after an O_DIRECT write into a hole of w,
 *                                fstat shows the blocks the server allocated
 *                                (st_blocks, wblocks.c)
 *   iomap-check expect-write-error MNT [buffered]
 *   iomap-check expect-wb-error MNT
 *   iomap-check expect-mkwrite-error MNT
 *   iomap-check expect-dirty-die MNT SERVER-PID
 *                                writes to "w" that a hostile server must make
 *                                fail cleanly (whostile.c); print the errors
 * Exit status 0 when every check passed. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../proto/fuse_iomap.h"
#include "model.h"
#include "wblocks.h"
#include "wdurable.h"
#include "whostile.h"
#include "wmodify.h"
#include "wshadow.h"
#include "wtimes.h"

static int failures;

/* "case NAME ok[: detail]" or "case NAME FAIL: why" */
static void report_detail(const char *name, bool ok, const char *detail)
{
	if (ok) {
		printf("case %s ok%s%s\n", name, *detail ? ": " : "", detail);
	} else {
		printf("case %s FAIL: %s\n", name, why);
		failures++;
	}
	fflush(stdout);
}

static void report(const char *name, bool ok)
{
	report_detail(name, ok, "");
}

/* pread f at off for len and compare with the model; false + why on mismatch */
static bool check_read(int fd, const struct m_file *f, uint64_t off, size_t len, uint8_t *buf)
{
	static uint8_t want[4 << 20];
	size_t expect = off >= f->size ? 0 : (f->size - off < len ? f->size - off : len);
	ssize_t n = pread(fd, buf, len, off);

	if (n < 0)
		return fail("%s: pread(%zu @ %llu): %s", f->name, len,
			    (unsigned long long)off, strerror(errno));
	if ((size_t)n != expect)
		return fail("%s: pread(%zu @ %llu) returned %zd, want %zu", f->name, len,
			    (unsigned long long)off, n, expect);
	m_expect(f, off, expect, want);
	for (size_t i = 0; i < expect; i++)
		if (buf[i] != want[i])
			return fail("%s: byte %llu is 0x%02x, want 0x%02x", f->name,
				    (unsigned long long)(off + i), buf[i], want[i]);
	return true;
}

static bool check_buffered(const char *mnt)
{
	static uint8_t buf[4 << 20];
	uint64_t seed = 0x1234567;

	for (size_t i = 0; i < M_NFILES; i++) {
		const struct m_file *f = &m_files[i];
		int fd = open_file(mnt, f->name, O_RDONLY);
		bool ok = fd >= 0;

		if (!ok)
			return fail("open %s: %s", f->name, strerror(errno));
		ok = check_read(fd, f, 0, f->size + 4096, buf);
		for (int r = 0; ok && r < 300; r++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			uint64_t off = (seed >> 20) % (f->size + 5000);
			size_t len = 1 + (seed >> 44) % 20000;

			ok = check_read(fd, f, off, len, buf);
		}
		close(fd);
		if (!ok)
			return false;
	}
	return true;
}

static bool check_direct(const char *mnt)
{
	static const struct { const char *name; uint64_t off, len; } reads[] = {
		{ "f", 0, 40960 }, { "f", 4096, 8192 }, { "f", 16384, 12288 },
		{ "f", 36864, 8192 }, { "f", 40960, 4096 }, { "big", 0, 2 << 20 },
		{ "big", 512 << 10, 1 << 20 }, { "big", 4096, 262144 },
	};
	uint8_t *buf;
	bool ok = true;

	if (posix_memalign((void **)&buf, 4096, 2 << 20))
		return fail("no memory");
	for (size_t i = 0; ok && i < sizeof(reads) / sizeof(reads[0]); i++) {
		int fd = open_file(mnt, reads[i].name, O_RDONLY | O_DIRECT);

		if (fd < 0) {
			ok = fail("open %s O_DIRECT: %s", reads[i].name, strerror(errno));
			break;
		}
		ok = check_read(fd, m_lookup(reads[i].name), reads[i].off, reads[i].len, buf);
		close(fd);
	}
	free(buf);
	return ok;
}

static bool check_mmap(const char *mnt)
{
	const struct m_file *f = m_lookup("f");
	static uint8_t want[64 << 10];
	int fd = open_file(mnt, "f", O_RDONLY);
	uint8_t *p;
	bool ok = true;

	if (fd < 0)
		return fail("open f: %s", strerror(errno));
	p = mmap(NULL, f->size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return fail("mmap f: %s", strerror(errno));
	m_expect(f, 0, f->size, want);
	for (size_t i = 0; ok && i < f->size; i++)
		if (p[i] != want[i])
			ok = fail("mmap byte %zu is 0x%02x, want 0x%02x", i, p[i], want[i]);
	munmap(p, f->size);
	return ok;
}

static bool check_fiemap(const char *mnt)
{
	static const struct { uint64_t log, phys, len; uint32_t flags; } want[] = {
		{ 0, 1 * M_MIB, 8 * M_KIB, 0 },
		{ 12 * M_KIB, 3 * M_MIB + 4 * M_KIB, 8 * M_KIB, 0 },
		{ 20 * M_KIB, 5 * M_MIB, 4 * M_KIB, FIEMAP_EXTENT_UNWRITTEN },
		{ 24 * M_KIB, 6 * M_MIB, 16 * M_KIB, FIEMAP_EXTENT_LAST },
	};
	struct { struct fiemap fm; struct fiemap_extent fe[16]; } r;
	int fd = open_file(mnt, "f", O_RDONLY);
	bool ok = true;

	if (fd < 0)
		return fail("open f: %s", strerror(errno));
	memset(&r, 0, sizeof(r));
	r.fm.fm_length = FIEMAP_MAX_OFFSET;
	r.fm.fm_extent_count = 16;
	if (ioctl(fd, FS_IOC_FIEMAP, &r.fm)) {
		ok = fail("FS_IOC_FIEMAP: %s", strerror(errno));
	} else if (r.fm.fm_mapped_extents != 4) {
		ok = fail("%u extents, want 4", r.fm.fm_mapped_extents);
	}
	for (unsigned int i = 0; ok && i < 4; i++) {
		const struct fiemap_extent *e = &r.fe[i];
		uint32_t fl = e->fe_flags & (FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_LAST);

		if (e->fe_logical != want[i].log || e->fe_physical != want[i].phys ||
		    e->fe_length != want[i].len || fl != want[i].flags)
			ok = fail("extent %u: logical %llu physical %llu length %llu flags 0x%x",
				  i, (unsigned long long)e->fe_logical,
				  (unsigned long long)e->fe_physical,
				  (unsigned long long)e->fe_length, e->fe_flags);
	}
	close(fd);
	return ok;
}

/* Run on a cold page cache: cached pages over unwritten extents are data. */
static bool check_seek(const char *mnt)
{
	static const struct { int whence; off_t from, want; } seeks[] = {
		{ SEEK_DATA, 0, 0 }, { SEEK_HOLE, 0, 8192 }, { SEEK_DATA, 8192 + 5, 12288 },
		{ SEEK_HOLE, 12288, 20480 }, { SEEK_DATA, 20480, 24576 },
		{ SEEK_HOLE, 24576, 38000 }, { SEEK_DATA, 38000, -ENXIO },
		{ SEEK_HOLE, 40000, -ENXIO },
	};
	int fd = open_file(mnt, "f", O_RDONLY);
	bool ok = true;

	if (fd < 0)
		return fail("open f: %s", strerror(errno));
	for (size_t i = 0; ok && i < sizeof(seeks) / sizeof(seeks[0]); i++) {
		off_t r = lseek(fd, seeks[i].from, seeks[i].whence);

		if (r < 0)
			r = -errno;
		if (r != seeks[i].want)
			ok = fail("lseek(%lld, %s) = %lld, want %lld", (long long)seeks[i].from,
				  seeks[i].whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE",
				  (long long)r, (long long)seeks[i].want);
	}
	close(fd);
	return ok;
}

static bool check_eof(const char *mnt)
{
	static uint8_t buf[8192];
	const struct m_file *f = m_lookup("f");
	int fd = open_file(mnt, "f", O_RDONLY);
	bool ok;

	if (fd < 0)
		return fail("open f: %s", strerror(errno));
	ok = check_read(fd, f, f->size, 100, buf) && check_read(fd, f, f->size - 10, 100, buf) &&
	     check_read(fd, f, 1ULL << 40, 100, buf);
	close(fd);
	return ok;
}

static int do_fill(const char *dev)
{
	static uint8_t buf[1 << 20];
	int fd = open(dev, O_WRONLY);

	if (fd < 0)
		return perror(dev), 1;
	for (uint64_t off = 0; off < M_DEV_SIZE; off += sizeof(buf)) {
		for (size_t i = 0; i < sizeof(buf); i += 8) {
			uint64_t w = ((off + i) / 8 + 1) * 0x9E3779B97F4A7C15ULL ^ 0xE4CE11E4CE11ULL;

			memcpy(buf + i, &w, 8);	/* m_dev_byte(), a word at a time (LE) */
		}
		if (pwrite(fd, buf, sizeof(buf), off) != (ssize_t)sizeof(buf))
			return perror("fill: pwrite"), 1;
	}
	return fsync(fd) || close(fd);
}

static int do_expect_error(const char *mnt)
{
	static const int flags[] = { O_RDONLY, O_RDONLY | O_DIRECT };
	uint8_t *buf;
	int bad = 0;

	if (posix_memalign((void **)&buf, 4096, 4096))
		return 1;
	for (int i = 0; i < 2; i++) {
		int fd = open_file(mnt, "f", flags[i]);
		ssize_t n = fd < 0 ? -1 : pread(fd, buf, 4096, 8192);
		const char *what = i ? "direct" : "buffered";

		if (fd < 0)
			printf("%s: open failed: %s\n", what, err_name(errno));
		else if (n < 0)
			printf("%s: read error %s\n", what, err_name(errno));
		else
			printf("%s: read returned %zd bytes, want an error\n", what, n), bad = 1;
		if (fd >= 0)
			close(fd);
	}
	free(buf);
	return bad;
}

/* The shadow copy of "w", for the write checks in the order they run */
static struct wshadow sh;

static bool w_write(int fd, uint64_t off, size_t len, int gen)
{
	static uint8_t *buf;

	if (!buf && posix_memalign((void **)&buf, 4096, 256 << 10))
		return fail("no memory");
	sh_pattern(buf, off, len, gen);
	return sh_pwrite(&sh, fd, buf, off, len);
}

/* Extending writes over holes (unwritten, converted by IOEND), an overwrite
 * of written blocks, a gap left as a hole, 512-byte writes into a written
 * and into a new block (whose rest iomap must zero). */
static bool check_write_direct(const char *mnt)
{
	static const struct { uint64_t off, len; } writes[] = {
		{ 0, 64 << 10 }, { 16 << 10, 8 << 10 }, { 128 << 10, 12 << 10 },
		{ (130 << 10) + 512, 512 }, { (200 << 10) + 1024, 512 },
	};
	int fd = open_w(mnt, O_RDWR | O_DIRECT);
	struct stat st;
	bool ok = true;

	if (fd < 0)
		return fail("open w O_DIRECT: %s", strerror(errno));
	for (size_t i = 0; ok && i < sizeof(writes) / sizeof(writes[0]); i++)
		ok = w_write(fd, writes[i].off, writes[i].len, (int)i + 1);
	if (ok && fstat(fd, &st))
		ok = fail("fstat w: %s", strerror(errno));
	else if (ok && (uint64_t)st.st_size != sh.size)
		ok = fail("size of w is %lld, want %llu", (long long)st.st_size,
			  (unsigned long long)sh.size);
	close(fd);
	return ok;
}

/* Buffered: an overwrite of written blocks, a write into a hole inside the
 * file, an extending write past a gap; then fsync and close must succeed. */
static bool check_write_buffered(const char *mnt)
{
	static const struct { uint64_t off, len; } writes[] = {
		{ 10000, 3000 }, { 250000, 100 }, { 300 << 10, 20000 },
	};
	int fd = open_w(mnt, O_RDWR);
	struct stat st;
	bool ok = true;

	if (fd < 0)
		return fail("open w: %s", strerror(errno));
	for (size_t i = 0; ok && i < sizeof(writes) / sizeof(writes[0]); i++)
		ok = w_write(fd, writes[i].off, writes[i].len, (int)i + 10);
	if (ok && fsync(fd))
		ok = fail("fsync w: %s", strerror(errno));
	if (ok && fstat(fd, &st))
		ok = fail("fstat w: %s", strerror(errno));
	else if (ok && (uint64_t)st.st_size != sh.size)
		ok = fail("size of w is %lld, want %llu", (long long)st.st_size,
			  (unsigned long long)sh.size);
	if (close(fd) && ok)
		ok = fail("close w: %s", strerror(errno));
	return ok;
}

/* The flags of the requests that the writes above caused, as the server
 * counted them: it never asked for FUSE_IOMAP_END, so it got none; writeback's
 * write mappings (FUSE_IOMAP_OP_WRITEBACK) and completions
 * (FUSE_IOMAP_IOEND_WRITEBACK) and the O_DIRECT completions
 * (FUSE_IOMAP_IOEND_DIRECT) say what they are. */
static bool check_write_flags(const char *mnt)
{
	static const char *const keys[] = { "wbmaps", "wbioends", "dioends" };
	int fd = open_w(mnt, O_RDONLY);
	long long ends;
	bool ok = true;

	if (fd < 0)
		return fail("open w: %s", strerror(errno));
	ends = server_state(fd, "ends");
	if (ends != 0)
		ok = fail("the server got %lld FUSE_IOMAP_END without asking for one", ends);
	for (size_t i = 0; ok && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (server_state(fd, keys[i]) <= 0)
			ok = fail("the server counted %s=%lld, want at least 1", keys[i],
				  server_state(fd, keys[i]));
	close(fd);
	return ok;
}

/* Read w back: buffered, then O_DIRECT, on the whole file and past EOF. */
static bool check_write_readback(const char *mnt)
{
	static const int flags[] = { O_RDONLY, O_RDONLY | O_DIRECT };
	bool ok = true;

	if (drop_caches())
		ok = fail("drop_caches: %s", strerror(errno));
	for (int i = 0; ok && i < 2; i++) {
		int fd = open_w(mnt, flags[i]);

		ok = fd >= 0 ? sh_check_file(&sh, fd, i ? "direct" : "buffered")
			     : fail("open w: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

/* The extents of w as FIEMAP reports them, compared with the raw device
 * (O_DIRECT, past the guest's cache of it); holes must stay unmapped:
 * 0-64K, 128K-140K, 200K-204K, 244K-248K, 300K-320K are written. */
static bool check_write_raw(const char *mnt, const char *dev)
{
	const uint64_t want = (64 + 12 + 4 + 4 + 20) << 10;
	int fd = open_w(mnt, O_RDONLY);
	int dfd = open(dev, O_RDONLY | O_DIRECT);
	uint64_t mapped;
	bool ok;

	if (fd < 0 || dfd < 0)
		ok = fail("open w or %s: %s", dev, strerror(errno));
	else if ((ok = sh_check_raw(&sh, fd, dfd, &mapped)) && mapped != want)
		ok = fail("%llu bytes mapped, want %llu", (unsigned long long)mapped,
			  (unsigned long long)want);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return ok;
}

static int do_fiemap(const char *mnt)
{
	struct { struct fiemap fm; struct fiemap_extent fe[16]; } r;
	int fd = open_file(mnt, "f", O_RDONLY);

	memset(&r, 0, sizeof(r));
	r.fm.fm_length = FIEMAP_MAX_OFFSET;
	r.fm.fm_extent_count = 16;
	if (fd < 0 || ioctl(fd, FS_IOC_FIEMAP, &r.fm))
		printf("fiemap error %s\n", err_name(errno));
	else
		printf("fiemap ok %u extents\n", r.fm.fm_mapped_extents);
	return 0;
}

static int do_xattr(const char *file, const char *name)
{
	char buf[256];
	ssize_t n = getxattr(file, name, buf, sizeof(buf) - 1);

	if (n < 0) {
		printf("error %s\n", err_name(errno));
		return 0;
	}
	buf[n] = 0;
	printf("%s\n", buf);
	return 0;
}

static int do_eperm(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int fd = open("/dev/fuse", O_RDWR);

	if (fd < 0 || syscall(SYS_capget, &h, d))
		return perror("eperm: setup"), 1;
	d[CAP_SYS_RAWIO / 32].effective &= ~(1U << (CAP_SYS_RAWIO % 32));
	if (syscall(SYS_capset, &h, d))
		return perror("eperm: capset"), 1;
	if (ioctl(fd, FUSE_DEV_IOC_ADD_IOMAP) == 0) {
		printf("FUSE_DEV_IOC_ADD_IOMAP succeeded without CAP_SYS_RAWIO\n");
		return 1;
	}
	printf("FUSE_DEV_IOC_ADD_IOMAP without CAP_SYS_RAWIO: %s\n", err_name(errno));
	return errno != EPERM;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "fill"))
		return do_fill(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "expect-error"))
		return do_expect_error(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "fiemap"))
		return do_fiemap(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "xattr"))
		return do_xattr(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "eperm"))
		return do_eperm();
	if (argc == 3 && !strcmp(argv[1], "expect-cow-refused"))
		return expect_cow_refused(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "expect-wb-error"))
		return expect_wb_error(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "expect-write-error"))
		return expect_write_error(argv[2], O_DIRECT);
	if (argc == 4 && !strcmp(argv[1], "expect-write-error") && !strcmp(argv[3], "buffered"))
		return expect_write_error(argv[2], 0);
	if (argc == 3 && !strcmp(argv[1], "expect-mkwrite-error"))
		return expect_mkwrite_error(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "expect-dirty-die"))
		return expect_dirty_die(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "write")) {
		report("write-direct", check_write_direct(argv[2]));
		report("write-buffered", check_write_buffered(argv[2]));
		report("write-flags", check_write_flags(argv[2]));
		report("write-readback", check_write_readback(argv[2]));
		report("write-raw", check_write_raw(argv[2], argv[3]));
		if (failures)
			return 1;
		report("mmap-write", check_mmap_write(&sh, argv[2]));
		report("truncate", check_truncate(&sh, argv[2]));
		report("fallocate", check_fallocate(&sh, argv[2]));
		report("fsync", check_fsync(&sh, argv[2], argv[3]));
		report("modify-raw", check_modify_raw(&sh, argv[2], argv[3]));
		report("otrunc", check_otrunc(&sh, argv[2]));
		report("copy-range", check_copy_range(&sh, argv[2]));
		return failures != 0;
	}
	if (argc == 4 && !strcmp(argv[1], "umount-mmap")) {
		bool destroyed;

		report("umount-mmap", check_umount_mmap(argv[2], argv[3], &destroyed));
		report("umount-destroy", destroyed ||
		       fail("no mark of FUSE_DESTROY on %s after umount", argv[3]));
		return failures != 0;
	}
	if (argc == 3 && !strcmp(argv[1], "times")) {
		struct wt_run r;
		char t[64];
		bool ok = wt_begin(&r, argv[2]);

		report("times-buffered", ok && wt_step(&r, WT_BUFFERED));
		report("times-direct", ok && wt_step(&r, WT_DIRECT));
		report("times-truncate", ok && wt_step(&r, WT_TRUNCATE));
		report("times-fsync", ok && wt_fsync(&r));
		report("times-mmap", ok && wt_step(&r, WT_MMAP));
		if (wt_end(&r, t, sizeof(t)))
			printf("times %s\n", t);
		else
			printf("times none: %s\n", why);
		return failures != 0;
	}
	if (argc == 5 && !strcmp(argv[1], "times-remount")) {
		report("times-remount", check_times_remount(argv[2], argv[3], argv[4]));
		return failures != 0;
	}
	if (argc == 4 && !strcmp(argv[1], "blocks")) {
		char d[256] = "";

		report_detail("blocks-after-write", check_blocks_write(argv[2], d, sizeof(d)), d);
		d[0] = 0;
		report_detail("blocks-after-direct", check_blocks_direct(argv[2], d, sizeof(d)), d);
		return failures != 0;
	}
	if (argc == 4 && !strcmp(argv[1], "syncfs")) {
		report("syncfs", check_syncfs(argv[2], argv[3], false));
		report("sync", check_syncfs(argv[2], argv[3], true));
		return failures != 0;
	}
	if (argc == 3 && !strcmp(argv[1], "read")) {
		report("read-buffered", check_buffered(argv[2]));
		report("read-mmap", check_mmap(argv[2]));
		return failures != 0;
	}
	if (argc == 3 && !strcmp(argv[1], "verify")) {
		report("seek", check_seek(argv[2]));
		report("read-buffered", check_buffered(argv[2]));
		report("read-direct", check_direct(argv[2]));
		report("read-mmap", check_mmap(argv[2]));
		report("fiemap", check_fiemap(argv[2]));
		report("eof", check_eof(argv[2]));
		return failures != 0;
	}
	fprintf(stderr, "usage: see the top of tests/iomap/iomap-check.c\n");
	return 2;
}
