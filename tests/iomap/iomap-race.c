/* iomap-race: concurrency cases for the writable file "w" of
 * iomap-test-server, each a few threads on the same file:
 *   direct-buffered     an O_DIRECT, a buffered and an mmap writer, each on
 *                       its own blocks (block % 3), each checking what it
 *                       wrote; a reader; a thread that syncs and drops the
 *                       page cache
 *   truncate-writeback  one thread writes and truncates (down and up), and
 *                       checks its data, while another forces writeback and
 *                       drops the page cache, and a reader reads
 *   readers             a writer (buffered, O_DIRECT, mmap) racing a
 *                       buffered, an O_DIRECT and an mmap reader
 *   punch-writeback     a writeback pass gets a mapping of all of w, late
 *                       (iomap-test-server holds its reply back, wdefer.h),
 *                       while a hole is punched in a block past its first
 *                       batch of dirty folios and the block written again:
 *                       writeback must not write the new data through the
 *                       stale mapping (only with iomap-test-server)
 * Writers own their bytes, so their checks are exact. Readers racing them
 * check that every byte is 0 (never written) or a byte some writer could
 * have written at that offset (the high nibble depends on the offset only).
 * At the end w is compared whole, cold, and on the raw device.
 *   iomap-race MNT DEVICE MODE ITERATIONS [--any-server]
 * (--any-server: another server, such as ext4cell-server, MNT/w a file of
 * it: its extents may lie anywhere on DEVICE.) Prints "case race-MODE ok: ..." or "case race-MODE FAIL: why". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "wshadow.h"
#include "xorshift.h"

#define BLOCK		4096
#define NBLOCKS		64	/* w spans at most this many blocks */

static struct {
	const char *mnt;
	int fd, dfd;		/* w buffered, w O_DIRECT */
	long iters;
	atomic_int writers;	/* still running: the others loop meanwhile */
	pthread_mutex_t lock;	/* the shadow and the first failure */
	char failure[512];
	atomic_long reads;
} r = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct wshadow sh;

static void __attribute__((format(printf, 1, 2))) tfail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&r.lock);
	if (!r.failure[0]) {
		va_start(ap, fmt);
		vsnprintf(r.failure, sizeof(r.failure), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&r.lock);
}

static bool failed(void)
{
	return __atomic_load_n(&r.failure[0], __ATOMIC_RELAXED) != 0;
}

/* The byte at off in generation gen: the high nibble depends on off only */
static uint8_t pat(uint64_t off, unsigned int gen)
{
	return (uint8_t)((((off * 2654435761u) >> 20) | 0x10) & 0xf0) | (gen & 0x0f);
}

static void fill(uint8_t *buf, uint64_t off, size_t len, unsigned int gen)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pat(off + i, gen);
}

/* A racing reader's view: each byte 0 or from the pattern at its offset */
static bool plausible(const uint8_t *buf, uint64_t off, size_t len, const char *who)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] && (buf[i] & 0xf0) != (pat(off + i, 0) & 0xf0)) {
			tfail("%s: byte %llu is 0x%02x, from no writer", who,
			      (unsigned long long)(off + i), buf[i]);
			return false;
		}
	return true;
}

/* Write one block through fd or map, record it, read it back exactly */
static bool write_block(int how, uint8_t *map, uint64_t b, unsigned int gen, uint8_t *buf)
{
	static const char *const names[] = { "direct", "buffered", "mmap" };
	uint64_t off = b * BLOCK;
	int fd = how == 0 ? r.dfd : r.fd;

	fill(buf, off, BLOCK, gen);
	if (how == 2) {
		memcpy(map + off, buf, BLOCK);
	} else if (pwrite(fd, buf, BLOCK, off) != BLOCK) {
		tfail("%s write of block %llu: %s", names[how], (unsigned long long)b,
		      strerror(errno));
		return false;
	}
	pthread_mutex_lock(&r.lock);
	sh_write(&sh, off, buf, BLOCK);
	pthread_mutex_unlock(&r.lock);
	if (how == 2) {
		memcpy(buf, map + off, BLOCK);
	} else if (pread(fd, buf, BLOCK, off) != BLOCK) {
		tfail("%s read of block %llu: %s", names[how], (unsigned long long)b,
		      strerror(errno));
		return false;
	}
	for (size_t i = 0; i < BLOCK; i++)
		if (buf[i] != pat(off + i, gen)) {
			tfail("%s: byte %llu is 0x%02x after writing 0x%02x", names[how],
			      (unsigned long long)(off + i), buf[i], pat(off + i, gen));
			return false;
		}
	return true;
}

static uint8_t *map_w(void)
{
	uint8_t *p = mmap(NULL, NBLOCKS * BLOCK, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);

	if (p == MAP_FAILED) {
		tfail("mmap: %s", strerror(errno));
		return NULL;
	}
	return p;
}

/* direct-buffered: writer `how` owns the blocks with b % 3 == how */
static void *owner(void *arg)
{
	int how = (int)(long)arg;
	uint64_t s = 0x9e3779b9u + how;
	uint8_t *buf = NULL, *map = how == 2 ? map_w() : NULL;

	if (!posix_memalign((void **)&buf, BLOCK, BLOCK) && (how != 2 || map)) {
		for (long i = 1; i <= r.iters && !failed(); i++) {
			uint64_t b = xs_next(&s) % (NBLOCKS / 3) * 3 + how;

			if (!write_block(how, map, b, (unsigned int)i, buf))
				break;
		}
	}
	if (map)
		munmap(map, NBLOCKS * BLOCK);
	free(buf);
	r.writers--;
	return NULL;
}

/* writeback and invalidation at any time */
static void *syncer(void *arg)
{
	unsigned int n = 0;

	(void)arg;
	while (r.writers && !failed()) {
		int err = 0;

		switch (n++ % 4) {
		case 0: err = fsync(r.fd); break;
		case 1: err = fdatasync(r.fd); break;
		case 2: err = sync_file_range(r.fd, 0, 0, SYNC_FILE_RANGE_WRITE); break;
		case 3: err = posix_fadvise(r.fd, 0, 0, POSIX_FADV_DONTNEED); break;
		}
		if (err)
			tfail("sync step %u: %s", n % 4, strerror(errno));
		usleep(2000);
	}
	return NULL;
}

/* a reader of kind how (0 direct, 1 buffered, 2 mmap) on random ranges */
static void *reader(void *arg)
{
	int how = (int)(long)arg;
	uint64_t s = 0x51ed270bu + how;
	uint8_t *buf, *map = NULL;

	if (posix_memalign((void **)&buf, BLOCK, 4 * BLOCK))
		return NULL;
	while (r.writers && !failed()) {
		uint64_t off = xs_next(&s) % (NBLOCKS - 4) * BLOCK, len = 4 * BLOCK;
		ssize_t n;

		if (how == 2) {
			/* the size is fixed in the readers case: no SIGBUS */
			map = map ? map : map_w();
			if (!map)
				break;
			memcpy(buf, map + off, len);
			n = len;
		} else {
			n = pread(how == 0 ? r.dfd : r.fd, buf, len, off);
		}
		if (n < 0) {
			tfail("reader %d: pread: %s", how, strerror(errno));
			break;
		}
		if (!plausible(buf, off, n, "reader"))
			break;
		r.reads++;
	}
	if (map)
		munmap(map, NBLOCKS * BLOCK);
	free(buf);
	return NULL;
}

/* truncate-writeback: the only writer, so its reads are exact */
static void *truncater(void *arg)
{
	uint64_t s = 0x7f4a7c15u;
	uint8_t *buf;

	(void)arg;
	if (posix_memalign((void **)&buf, BLOCK, 2 * BLOCK)) {
		r.writers--;
		return NULL;
	}
	for (long i = 1; i <= r.iters && !failed(); i++) {
		uint64_t v = xs_next(&s), off = v % (NBLOCKS * BLOCK - 2 * BLOCK);
		size_t len = 1 + (v >> 32) % (2 * BLOCK);

		if (v & (1ULL << 62)) {
			uint64_t size = (v >> 20) % (NBLOCKS * BLOCK);

			if (ftruncate(r.fd, size)) {
				tfail("ftruncate(%llu): %s", (unsigned long long)size,
				      strerror(errno));
				break;
			}
			sh_resize(&sh, size);
			off = size > len ? size - len : 0;
		} else {
			fill(buf, off, len, (unsigned int)i);
			if (!sh_pwrite(&sh, r.fd, buf, off, len)) {
				tfail("%s", why);
				break;
			}
		}
		if (!sh_check_read(&sh, r.fd, off, len, buf, "truncater")) {
			tfail("%s", why);
			break;
		}
	}
	free(buf);
	r.writers--;
	return NULL;
}

/* readers: one writer, buffered, O_DIRECT and mmap in turn */
static void *writer(void *arg)
{
	uint64_t s = 0x2545f491u;
	uint8_t *buf, *map = map_w();

	(void)arg;
	if (map && !posix_memalign((void **)&buf, BLOCK, BLOCK)) {
		for (long i = 1; i <= r.iters && !failed(); i++)
			if (!write_block(i % 3, map, xs_next(&s) % NBLOCKS, (unsigned int)i, buf))
				break;
		free(buf);
	}
	if (map)
		munmap(map, NBLOCKS * BLOCK);
	r.writers--;
	return NULL;
}

#define DIRTY	31	/* PAGEVEC_SIZE: the folios of the pass's first batch */
#define VICTIM	40

/* punch-writeback: the writeback pass whose first mapping is held back */
static void *pass(void *arg)
{
	(void)arg;
	if (sync_file_range(r.fd, 0, 0, SYNC_FILE_RANGE_WRITE))
		tfail("sync_file_range: %s", strerror(errno));
	return NULL;
}

/*
 * punch-writeback: the hole punch, in a thread of its own: after the
 * server has answered, fallocate() waits for all writeback of w (for the
 * timestamps), the pass's first folio included.
 */
static void *puncher(void *arg)
{
	(void)arg;
	if (fallocate(r.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, VICTIM * BLOCK, BLOCK))
		tfail("punch: %s", strerror(errno));
	return NULL;
}

/* A number "KEY=N" in iomap-test-server's "user.iomap.deferred" of w, or -1 */
static long long deferred(const char *key)
{
	return xattr_number(r.fd, "user.iomap.deferred", key);
}

/* Wait (at most 10 s) until "user.iomap.deferred" says KEY=N, N >= want */
static bool wait_deferred(const char *key, long long want)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 1000 && deferred(key) < want; i++)
		nanosleep(&nap, NULL);
	return deferred(key) >= want;
}

/*
 * Each round: w written whole and clean, its first DIRTY blocks dirtied,
 * the server armed, a writeback pass started; once its first BEGIN is held
 * (for a mapping of all of w), a hole is punched at VICTIM, past the first
 * batch of dirty folios writeback looks up, and VICTIM written again; the
 * server then answers the pass.
 */
static bool punch_writeback(void)
{
	uint8_t *buf;
	char arm[128];
	pthread_t t, tp;

	if (posix_memalign((void **)&buf, BLOCK, BLOCK))
		return fail("no memory");
	for (long i = 1; i <= r.iters && !failed(); i++) {
		unsigned int gen = (unsigned int)(3 * i);

		/* contiguous blocks again: the server allocates in order */
		if (ftruncate(r.fd, 0) || ftruncate(r.fd, NBLOCKS * BLOCK))
			return fail("ftruncate: %s", strerror(errno));
		sh_resize(&sh, 0);
		sh_resize(&sh, NBLOCKS * BLOCK);
		for (uint64_t b = 0; b < NBLOCKS; b++)
			if (!write_block(1, NULL, b, gen, buf))
				return false;
		if (fsync(r.fd))
			return fail("fsync: %s", strerror(errno));
		for (uint64_t b = 0; b < DIRTY; b++)
			if (!write_block(1, NULL, b, gen + 1, buf))
				return false;

		if (fgetxattr(r.fd, "user.iomap.defer", arm, sizeof(arm)) < 0)
			return fail("arming the server: %s", strerror(errno));
		pthread_create(&t, NULL, pass, NULL);
		if (!wait_deferred("held", i))
			tfail("round %ld: the server never held a BEGIN of the pass", i);
		pthread_create(&tp, NULL, puncher, NULL);
		if (!wait_deferred("punched", i))
			tfail("round %ld: the punch never reached the server", i);
		sh_zero(&sh, VICTIM * BLOCK, BLOCK);
		write_block(1, NULL, VICTIM, gen + 2, buf);
		pthread_join(tp, NULL);
		pthread_join(t, NULL);
		if (!failed() && deferred("timeouts") != 0)
			tfail("round %ld: the held reply timed out (%lld): the punch and the rewrite did not reach the server",
			      i, deferred("timeouts"));
		if (!failed() && (fsync(r.fd) || posix_fadvise(r.fd, 0, 0, POSIX_FADV_DONTNEED)))
			tfail("fsync and drop the page cache: %s", strerror(errno));
		if (!failed() && !sh_check_file(&sh, r.fd, "after the pass, cold"))
			tfail("round %ld: %s", i, why);
	}
	free(buf);
	return !failed() || fail("%s", r.failure);
}

static bool run(const char *mode)
{
	pthread_t t[6];
	int n = 0;

	if (!strcmp(mode, "direct-buffered")) {
		r.writers = 3;
		for (long how = 0; how < 3; how++)
			pthread_create(&t[n++], NULL, owner, (void *)how);
		pthread_create(&t[n++], NULL, syncer, NULL);
		pthread_create(&t[n++], NULL, reader, (void *)1L);
	} else if (!strcmp(mode, "truncate-writeback")) {
		r.writers = 1;
		pthread_create(&t[n++], NULL, truncater, NULL);
		pthread_create(&t[n++], NULL, syncer, NULL);
		pthread_create(&t[n++], NULL, reader, (void *)1L);
	} else if (!strcmp(mode, "punch-writeback")) {
		return punch_writeback();
	} else if (!strcmp(mode, "readers")) {
		r.writers = 1;
		pthread_create(&t[n++], NULL, writer, NULL);
		for (long how = 0; how < 3; how++)
			pthread_create(&t[n++], NULL, reader, (void *)how);
	} else {
		return fail("unknown mode %s", mode);
	}
	while (n)
		pthread_join(t[--n], NULL);
	return !r.failure[0] || fail("%s", r.failure);
}

int main(int argc, char **argv)
{
	int raw;
	bool ok;

	if (argc != 5 && (argc != 6 || strcmp(argv[5], "--any-server"))) {
		fprintf(stderr, "usage: iomap-race MNT DEVICE MODE ITERATIONS [--any-server]\n");
		return 2;
	}
	sh_any_layout = argc == 6;
	r.mnt = argv[1];
	r.iters = atol(argv[4]);
	r.fd = open_w(r.mnt, O_RDWR | O_TRUNC);
	r.dfd = open_w(r.mnt, O_RDWR | O_DIRECT);
	raw = open(argv[2], O_RDONLY | O_DIRECT);
	ok = (r.fd >= 0 && r.dfd >= 0 && raw >= 0) || fail("open: %s", strerror(errno));
	/* a fixed size, so that mappings never reach past EOF */
	if (ok && strcmp(argv[3], "truncate-writeback")) {
		ok = !ftruncate(r.fd, NBLOCKS * BLOCK) || fail("ftruncate: %s", strerror(errno));
		sh_resize(&sh, NBLOCKS * BLOCK);
	}
	ok = ok && run(argv[3]);
	if (ok && (fsync(r.fd) || posix_fadvise(r.fd, 0, 0, POSIX_FADV_DONTNEED)))
		ok = fail("fsync and drop the page cache: %s", strerror(errno));
	ok = ok && sh_check_file(&sh, r.fd, "at the end, cold") &&
	     sh_check_raw(&sh, r.fd, raw, NULL);
	if (!ok) {
		printf("case race-%s FAIL: %s\n", argv[3], why);
		return 1;
	}
	printf("case race-%s ok: %ld iterations, %ld racing reads\n", argv[3], r.iters,
	       (long)r.reads);
	return 0;
}
