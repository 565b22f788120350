/* iomap-fsx: a seeded random-operation exerciser for the writable file "w"
 * of iomap-test-server, in the spirit of fsx: buffered and O_DIRECT reads
 * and writes, mmap reads and writes, truncates, fallocate (allocate, keep
 * size, punch, zero), fsync, fdatasync, dropping the file's page cache and
 * reopening (sometimes with O_TRUNC), each checked against a shadow copy
 * in memory (wshadow.h). Every CHECK_EVERY operations and at the end, w is
 * compared whole, cold, and on the raw device at the addresses FIEMAP
 * reports; the server's size must match (iomap-test-server's report of it;
 * --any-server: another server, such as ext4cell-server, MNT/w a file of it).
 *   iomap-fsx MNT DEVICE SEED NOPS [--any-server]
 * Prints "case fsx-SEED ok: counts" or "case fsx-SEED FAIL: why" and the
 * last operations. Exit status 0 when every check passed. */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wshadow.h"

#define MAX_SIZE	(256 << 10)	/* w stays below this */
#define MAX_LEN		(16 << 10)	/* of one read, write, fallocate, mapping */
#define CHECK_EVERY	2000
#define DIO_ALIGN	512
#define LOG_LEN		24

enum op {
	OP_READ, OP_READ_DIRECT, OP_WRITE, OP_WRITE_DIRECT, OP_MAPREAD, OP_MAPWRITE,
	OP_TRUNCATE, OP_FALLOCATE, OP_FSYNC, OP_FDATASYNC, OP_INVALIDATE, OP_REOPEN,
	OP_COUNT
};
static const char *const op_names[OP_COUNT] = {
	"read", "read-direct", "write", "write-direct", "mapread", "mapwrite",
	"truncate", "fallocate", "fsync", "fdatasync", "invalidate", "reopen",
};
/* relative frequencies */
static const unsigned int op_weight[OP_COUNT] = { 8, 4, 10, 5, 4, 3, 3, 4, 1, 1, 1, 1 };

static struct {
	const char *mnt, *dev;
	bool any_server;	/* not iomap-test-server: its size report is not asked */
	int fd, dfd;		/* w buffered, w O_DIRECT */
	uint64_t rng;
	unsigned long long count[OP_COUNT];
	char log[LOG_LEN][96];
	unsigned long n;
	uint8_t *buf;		/* aligned, MAX_LEN */
} x;
static struct wshadow sh;

static uint64_t rnd(void)
{
	x.rng ^= x.rng >> 12;
	x.rng ^= x.rng << 25;
	x.rng ^= x.rng >> 27;
	return x.rng * 0x2545F4914F6CDD1DULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void __attribute__((format(printf, 1, 2))) logop(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x.log[x.n % LOG_LEN], sizeof(x.log[0]), fmt, ap);
	va_end(ap);
}

static void fill_random(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(rnd() >> 56);
}

/* A range for op: direct ones aligned to DIO_ALIGN, all below MAX_SIZE. */
static void pick_range(bool direct, uint64_t *off, uint64_t *len)
{
	*off = below(MAX_SIZE);
	*len = 1 + below(MAX_LEN);
	if (direct) {
		*off &= ~(uint64_t)(DIO_ALIGN - 1);
		*len = (*len + DIO_ALIGN - 1) & ~(uint64_t)(DIO_ALIGN - 1);
	}
	if (*off + *len > MAX_SIZE)
		*len = MAX_SIZE - *off;
}

static bool do_read(bool direct)
{
	uint64_t off, len;

	pick_range(direct, &off, &len);
	logop("%s %llu +%llu", direct ? "read-direct" : "read", (unsigned long long)off,
	      (unsigned long long)len);
	return sh_check_read(&sh, direct ? x.dfd : x.fd, off, len, x.buf,
			     direct ? "direct read" : "read");
}

static bool do_write(bool direct)
{
	uint64_t off, len;

	pick_range(direct, &off, &len);
	logop("%s %llu +%llu", direct ? "write-direct" : "write", (unsigned long long)off,
	      (unsigned long long)len);
	fill_random(x.buf, len);
	return sh_pwrite(&sh, direct ? x.dfd : x.fd, x.buf, off, len);
}

/* Map the pages of [off, off + len); *base is where off lies in the map. */
static uint8_t *map(uint64_t off, uint64_t len, uint8_t **base, size_t *maplen)
{
	uint64_t pg = off & ~4095ULL;
	uint8_t *p;

	*maplen = ((off + len + 4095) & ~4095ULL) - pg;
	p = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_SHARED, x.fd, pg);
	if (p == MAP_FAILED)
		return NULL;
	*base = p + (off - pg);
	return p;
}

static bool do_mapread(void)
{
	uint64_t off, len;
	uint8_t *p, *at;
	size_t maplen;
	bool ok;

	if (!sh.size)
		return true;
	off = below(sh.size);
	len = 1 + below(sh.size - off < MAX_LEN ? sh.size - off : MAX_LEN);
	logop("mapread %llu +%llu", (unsigned long long)off, (unsigned long long)len);
	p = map(off, len, &at, &maplen);
	if (!p)
		return fail("mmap: %s", strerror(errno));
	ok = sh_compare(&sh, at, off, len, "mapread");
	munmap(p, maplen);
	return ok;
}

/* Like fsx: grow the file first if needed, store through the mapping; when
 * the map holds EOF, scribble past it: those bytes must never be seen. */
static bool do_mapwrite(void)
{
	uint64_t off, len, end;
	uint8_t *p, *at;
	size_t maplen;
	bool ok = true;

	pick_range(false, &off, &len);
	end = off + len;
	logop("mapwrite %llu +%llu", (unsigned long long)off, (unsigned long long)len);
	if (end > sh.size) {
		if (ftruncate(x.fd, end))
			return fail("mapwrite: ftruncate(%llu): %s", (unsigned long long)end,
				    strerror(errno));
		sh_resize(&sh, end);
	}
	p = map(off, len, &at, &maplen);
	if (!p)
		return fail("mmap: %s", strerror(errno));
	fill_random(x.buf, len);
	memcpy(at, x.buf, len);
	sh_write(&sh, off, x.buf, len);
	if ((sh.size & 4095) && (off & ~4095ULL) + maplen > sh.size)
		memset(p + (sh.size - (off & ~4095ULL)), 0xa5, 4096 - (sh.size & 4095));
	if (rnd() & 1 && msync(p, maplen, MS_SYNC))
		ok = fail("msync: %s", strerror(errno));
	munmap(p, maplen);
	return ok;
}

static bool do_truncate(void)
{
	uint64_t size = below(MAX_SIZE + 1);

	/* often near EOF: partial blocks at both ends */
	if (rnd() & 1 && sh.size)
		size = sh.size - below(sh.size < 8192 ? sh.size : 8192) + below(8192);
	if (size > MAX_SIZE)
		size = MAX_SIZE;
	logop("truncate %llu (from %llu)", (unsigned long long)size,
	      (unsigned long long)sh.size);
	if (ftruncate(x.fd, size))
		return fail("ftruncate(%llu): %s", (unsigned long long)size, strerror(errno));
	sh_resize(&sh, size);
	return true;
}

static bool do_fallocate(void)
{
	static const int modes[] = {
		0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_ZERO_RANGE, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
	};
	int mode = modes[below(sizeof(modes) / sizeof(modes[0]))];
	uint64_t off, len;

	pick_range(false, &off, &len);
	logop("fallocate %llu +%llu mode 0x%x", (unsigned long long)off,
	      (unsigned long long)len, mode);
	if (fallocate(x.fd, mode, off, len))
		return fail("fallocate(0x%x, %llu, %llu): %s", mode, (unsigned long long)off,
			    (unsigned long long)len, strerror(errno));
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		sh_zero(&sh, off, len);
	if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > sh.size)
		sh_resize(&sh, off + len);
	return true;
}

static bool do_sync(bool data)
{
	logop("%s", data ? "fdatasync" : "fsync");
	if (data ? fdatasync(x.fd) : fsync(x.fd))
		return fail("%s: %s", data ? "fdatasync" : "fsync", strerror(errno));
	return true;
}

/* Written back, then the file's clean page cache dropped: reads go to disk */
static bool drop_file_cache(void)
{
	if (fsync(x.fd) || posix_fadvise(x.fd, 0, 0, POSIX_FADV_DONTNEED))
		return fail("fsync and drop the page cache: %s", strerror(errno));
	return true;
}

static bool do_invalidate(void)
{
	logop("invalidate");
	return drop_file_cache();
}

static bool open_w_both(int extra)
{
	x.fd = open_w(x.mnt, O_RDWR | extra);
	x.dfd = open_w(x.mnt, O_RDWR | O_DIRECT);
	return (x.fd >= 0 && x.dfd >= 0) || fail("open w: %s", strerror(errno));
}

/* close (which writes back) and open again, one in eight with O_TRUNC */
static bool do_reopen(void)
{
	bool trunc = !below(8);

	logop("%s", trunc ? "reopen O_TRUNC" : "reopen");
	if (close(x.fd) || close(x.dfd))
		return fail("close: %s", strerror(errno));
	if (trunc)
		sh_resize(&sh, 0);
	return open_w_both(trunc ? O_TRUNC : 0);
}

/* All of w, cold, and on the raw device; the server agrees on the size. */
static bool check_all(void)
{
	struct stat st;
	int raw = open(x.dev, O_RDONLY | O_DIRECT);
	bool ok;

	ok = raw >= 0 || fail("open %s: %s", x.dev, strerror(errno));
	ok = ok && drop_file_cache() && sh_check_file(&sh, x.fd, "whole file, cold") &&
	     sh_check_raw(&sh, x.fd, raw, NULL);
	if (ok && (fstat(x.fd, &st) || (uint64_t)st.st_size != sh.size))
		ok = fail("size is %lld, want %llu", (long long)st.st_size,
			  (unsigned long long)sh.size);
	if (ok && !x.any_server && server_state(x.fd, "size") != (long long)sh.size)
		ok = fail("the server's size is %lld, want %llu", server_state(x.fd, "size"),
			  (unsigned long long)sh.size);
	if (raw >= 0)
		close(raw);
	return ok;
}

static bool run_op(enum op op)
{
	switch (op) {
	case OP_READ: return do_read(false);
	case OP_READ_DIRECT: return do_read(true);
	case OP_WRITE: return do_write(false);
	case OP_WRITE_DIRECT: return do_write(true);
	case OP_MAPREAD: return do_mapread();
	case OP_MAPWRITE: return do_mapwrite();
	case OP_TRUNCATE: return do_truncate();
	case OP_FALLOCATE: return do_fallocate();
	case OP_FSYNC: return do_sync(false);
	case OP_FDATASYNC: return do_sync(true);
	case OP_INVALIDATE: return do_invalidate();
	case OP_REOPEN: return do_reopen();
	default: return fail("no operation %d", op);
	}
}

static enum op pick_op(void)
{
	unsigned int total = 0, r;
	int op;

	for (op = 0; op < OP_COUNT; op++)
		total += op_weight[op];
	r = below(total);
	for (op = 0; r >= op_weight[op]; op++)
		r -= op_weight[op];
	return op;
}

int main(int argc, char **argv)
{
	unsigned long long seed, nops;
	bool ok;

	if (argc != 5 && (argc != 6 || strcmp(argv[5], "--any-server"))) {
		fprintf(stderr, "usage: iomap-fsx MNT DEVICE SEED NOPS [--any-server]\n");
		return 2;
	}
	x.any_server = argc == 6;
	sh_any_layout = x.any_server;
	x.mnt = argv[1];
	x.dev = argv[2];
	seed = strtoull(argv[3], NULL, 0);
	nops = strtoull(argv[4], NULL, 0);
	x.rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (posix_memalign((void **)&x.buf, 4096, MAX_LEN + 4096))
		return 1;
	ok = open_w_both(O_TRUNC);
	for (x.n = 0; ok && x.n < nops; x.n++) {
		enum op op = pick_op();

		x.count[op]++;
		ok = run_op(op) && ((x.n + 1) % CHECK_EVERY || check_all());
		if (!ok)
			break;
	}
	if (ok) {
		logop("final check");
		ok = check_all();
	}
	if (!ok) {
		printf("case fsx-%llu FAIL: op %lu: %s\n", seed, x.n, why);
		for (unsigned long i = x.n >= LOG_LEN ? x.n - LOG_LEN + 1 : 0; i <= x.n; i++)
			printf("  op %lu: %s\n", i, x.log[i % LOG_LEN]);
		return 1;
	}
	printf("case fsx-%llu ok: %llu ops:", seed, nops);
	for (int op = 0; op < OP_COUNT; op++)
		printf(" %s %llu", op_names[op], x.count[op]);
	printf("\n");
	return 0;
}
