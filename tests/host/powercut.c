/* tests/host/powercut.c: the workload and the checker of the power-cut tests
 * (powercut.suite).
 *   powercut work DIR SEED LOG   a seeded mix of create, write, append,
 *       truncate, fallocate, punch, rename, unlink and fsync in DIR. A file
 *       whose fsync returned is "sealed": its path, size and checksum go to
 *       LOG (synced, on another filesystem) and it is never touched again.
 *       Even seeds sync six times more rarely (longer transactions).
 *       Stops quietly at the first error (the filesystem died with the cut).
 *   powercut check DIR LOG       after the cut and a replay: every sealed file
 *       is there, whole; no file holds a byte it was never given: every
 *       512-byte chunk of every file is zeros or the pattern its own writes
 *       put at that offset. Exit 0, or 1 with one line per finding.
 * All sizes and offsets are multiples of CHUNK. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK 512
#define SLOTS 48
#define OPS 400
#define MAX_CHUNKS 160
#define SUBDIRS 3

struct file {
	bool live, sealed;
	unsigned id, dir;
	char prefix;	/* 'f' as created, 'r' once renamed */
};

static uint64_t rng;
static unsigned sync_skip;	/* of 6 sync operations, how many are skipped */

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* The bytes file id holds at chunk offset off, for every version of it. */
static void pattern(unsigned id, uint64_t off, unsigned char *c)
{
	memcpy(c, "PCWK", 4);
	memcpy(c + 4, &id, 4);
	memcpy(c + 8, &off, 8);
	for (unsigned i = 16; i < CHUNK; i++)
		c[i] = (unsigned char)(id * 131u + (unsigned)(off / CHUNK) * 7u + i);
}

static void path_of(const char *dir, const struct file *f, char *p, size_t len)
{
	snprintf(p, len, "%s/d%u/%c%u", dir, f->dir, f->prefix, f->id);
}

static uint32_t crc(uint32_t h, const unsigned char *b, size_t n)
{
	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

/* Writes chunks [first, first + n) of f's pattern through fd, in one call
 * (whole blocks of it reach the device directly, not through the journal). */
static int put_chunks(int fd, unsigned id, unsigned first, unsigned n)
{
	unsigned char *c = malloc((size_t)n * CHUNK);
	int rc = 0;

	if (!c)
		return -1;
	for (unsigned i = 0; i < n; i++)
		pattern(id, (uint64_t)(first + i) * CHUNK, c + (size_t)i * CHUNK);
	if (pwrite(fd, c, (size_t)n * CHUNK, (off_t)first * CHUNK) != (ssize_t)n * CHUNK)
		rc = -1;
	free(c);
	return rc;
}

/* fsync f, then records it in the log: path size checksum. */
static int seal(const char *dir, struct file *f, int fd, FILE *log)
{
	char p[4096];
	unsigned char buf[CHUNK];
	uint32_t h = 2166136261u;
	struct stat st;
	ssize_t n;
	off_t off = 0;

	if (fsync(fd) || fstat(fd, &st))
		return -1;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		h = crc(h, buf, (size_t)n);
		off += n;
	}
	if (n < 0)
		return -1;
	path_of(dir, f, p, sizeof(p));
	fprintf(log, "%s %lld %08x\n", p + strlen(dir) + 1, (long long)st.st_size, h);
	if (fflush(log) || fsync(fileno(log)))
		return -1;
	f->sealed = true;
	return 0;
}

/* One operation on slot f; -1 when the filesystem failed. */
static int op(const char *dir, struct file *f, unsigned *next_id, FILE *log)
{
	char p[4096], q[4096];
	unsigned kind = rnd(100);
	int fd, rc = 0;

	if (!f->live) {
		f->live = true;
		f->id = (*next_id)++;
		f->dir = rnd(SUBDIRS);
		f->prefix = 'f';
		path_of(dir, f, p, sizeof(p));
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			return -1;
		rc = put_chunks(fd, f->id, 0, 1 + rnd(64));
		return close(fd) || rc ? -1 : 0;
	}
	if (f->sealed)
		return 0;
	path_of(dir, f, p, sizeof(p));
	if (kind < 8) {
		f->live = false;
		return unlink(p);
	}
	if (kind < 14) {
		struct file moved = *f;

		moved.dir = rnd(SUBDIRS);
		moved.prefix = 'r';
		path_of(dir, &moved, q, sizeof(q));
		if (rename(p, q))
			return -1;
		*f = moved;
		return 0;
	}
	fd = open(p, O_RDWR);
	if (fd < 0)
		return -1;
	if (kind < 50) {
		rc = put_chunks(fd, f->id, rnd(MAX_CHUNKS), 1 + rnd(32));
	} else if (kind < 62) {
		struct stat st;

		rc = fstat(fd, &st) ? -1 : put_chunks(fd, f->id, (unsigned)(st.st_size / CHUNK),
						      1 + rnd(48));
	} else if (kind < 70) {
		rc = ftruncate(fd, (off_t)rnd(MAX_CHUNKS) * CHUNK);
	} else if (kind < 76) {
		rc = fallocate(fd, 0, (off_t)rnd(MAX_CHUNKS) * CHUNK, (off_t)(1 + rnd(64)) * CHUNK);
		rc = rc && errno == EOPNOTSUPP ? 0 : rc;	/* block-mapped (ext3) */
	} else if (kind < 82) {
		rc = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       (off_t)rnd(MAX_CHUNKS) * CHUNK, (off_t)(1 + rnd(16)) * CHUNK);
		rc = rc && errno == EOPNOTSUPP ? 0 : rc;	/* block-mapped (ext3) */
	} else if (rnd(6) < sync_skip) {
		rc = 0;		/* long transactions: freed blocks wait to be reused */
	} else if (kind < 92) {
		rc = seal(dir, f, fd, log);
	} else {
		rc = fdatasync(fd);
	}
	return close(fd) || rc ? -1 : 0;
}

static int work(const char *dir, unsigned seed, const char *logpath)
{
	struct file files[SLOTS] = { { 0 } };
	unsigned next_id = 1;
	char p[4096];
	FILE *log = fopen(logpath, "w");

	if (!log) {
		perror(logpath);
		return 2;
	}
	rng = 0x9e3779b97f4a7c15ull ^ seed;
	sync_skip = seed % 2 ? 0 : 5;
	for (unsigned d = 0; d < SUBDIRS; d++) {
		snprintf(p, sizeof(p), "%s/d%u", dir, d);
		if (mkdir(p, 0755) && errno != EEXIST)
			goto died;
	}
	for (unsigned i = 0; i < OPS; i++)
		if (op(dir, &files[rnd(SLOTS)], &next_id, log))
			goto died;
	fclose(log);
	return 0;
died:
	fprintf(stderr, "powercut: work stopped: %s\n", strerror(errno));
	fclose(log);
	return 0;
}

static int findings;

static void finding(const char *fmt, const char *path, long long a, long long b)
{
	printf("powercut: ");
	printf(fmt, path, a, b);
	printf("\n");
	findings++;
}

/* Every chunk of the file at path is zeros or its own pattern. */
static void check_file(const char *path, unsigned id)
{
	unsigned char buf[CHUNK], want[CHUNK], zero[CHUNK] = { 0 };
	int fd = open(path, O_RDONLY);
	off_t off = 0;
	ssize_t n;

	if (fd < 0) {
		finding("%s: cannot open (%lld %lld)", path, errno, 0);
		return;
	}
	while ((n = pread(fd, buf, CHUNK, off)) > 0) {
		pattern(id, (uint64_t)off, want);
		if (n != CHUNK || (memcmp(buf, zero, CHUNK) && memcmp(buf, want, CHUNK))) {
			finding("%s: chunk at %lld holds data it was never given (%lld bytes)", path,
				(long long)off, (long long)n);
			break;
		}
		off += n;
	}
	if (n < 0)
		finding("%s: read error at %lld (errno %lld)", path, (long long)off, errno);
	close(fd);
}

static void check_tree(const char *dir)
{
	char p[4096];

	for (unsigned d = 0; d < SUBDIRS; d++) {
		DIR *dh;
		struct dirent *e;

		snprintf(p, sizeof(p), "%s/d%u", dir, d);
		if (!(dh = opendir(p)))
			continue;	/* the cut came before the mkdir committed */
		while ((e = readdir(dh))) {
			unsigned id;
			char kind, extra;

			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/d%u/%s", dir, d, e->d_name);
			if (sscanf(e->d_name, "%c%u%c", &kind, &id, &extra) != 2 ||
			    (kind != 'f' && kind != 'r'))
				finding("%s: a name the workload never made (%lld %lld)", p, 0, 0);
			else
				check_file(p, id);
		}
		closedir(dh);
	}
}

static int check(const char *dir, const char *logpath)
{
	FILE *log = fopen(logpath, "r");
	char rel[1024], p[4096];
	long long size;
	unsigned want, sealed = 0;

	if (!log) {
		perror(logpath);
		return 2;
	}
	check_tree(dir);
	while (fscanf(log, "%1023s %lld %x", rel, &size, &want) == 3) {
		unsigned char buf[CHUNK];
		uint32_t h = 2166136261u;
		struct stat st;
		ssize_t n;
		off_t off = 0;
		int fd;

		sealed++;
		snprintf(p, sizeof(p), "%s/%s", dir, rel);
		fd = open(p, O_RDONLY);
		if (fd < 0 || fstat(fd, &st)) {
			finding("%s: sealed (fsync returned) but missing (%lld %lld)", p, size, 0);
			if (fd >= 0)
				close(fd);
			continue;
		}
		while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
			h = crc(h, buf, (size_t)n);
			off += n;
		}
		close(fd);
		if (st.st_size != size || h != want)
			finding("%s: sealed with size %lld, found %lld or other bytes", p, size,
				(long long)st.st_size);
	}
	fclose(log);
	printf("powercut: %u sealed files checked, %d findings\n", sealed, findings);
	return findings ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "work"))
		return work(argv[2], (unsigned)strtoul(argv[3], NULL, 10), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3]);
	fprintf(stderr, "usage: powercut work DIR SEED LOG | powercut check DIR LOG\n");
	return 2;
}
