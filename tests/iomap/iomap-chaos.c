/* iomap-chaos: a workload for a hostile server (iomap-test-server --fuzz):
 * PROCS processes (default 2) each run random operations on the files of
 * MNT (f, big, w and the directory) for SECONDS: buffered, O_DIRECT and mmap
 * reads and writes, truncates, fallocate, fsync, syncfs, SEEK_DATA/HOLE,
 * FIEMAP, stat, xattrs, readdir, copy_file_range, page cache drops. Errors
 * are expected and only counted (SIGBUS of a mapping too); what may not
 * happen is an operation that takes longer than 20 s (SIGALRM: the worker
 * names it and exits with status 3) or a process that dies otherwise.
 *   iomap-chaos MNT SEED SECONDS [PROCS]
 * Prints "ops=N errors=N sigbus=N", exit status 0, or a line starting with
 * "FAIL:" and status 1. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "xorshift.h"

#define OP_SECONDS	20
#define MAX_IO		(256 * 1024)
#define SPAN		(4ULL << 20)	/* offsets used: the files and past them */
#define NFDS		4

static const char *const names[] = { "f", "big", "w", "w", "nothere" };

static struct {
	const char *mnt;
	uint64_t rng;
	int fd[NFDS];
	uint8_t *buf;
	unsigned long ops, errors, sigbus;
	sigjmp_buf bus;
	volatile int op;	/* the operation under way (one_op's case) */
} c;

static uint64_t rnd(void)
{
	return xs_next(&c.rng);
}

static uint64_t below(uint64_t n)
{
	return xs_below(&c.rng, n);
}

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(c.bus, 1);
}

static void on_alarm(int sig)
{
	static const char *const what[] = {
		"open", "open", "pread", "pread", "pwrite", "pwrite", "mmap", "ftruncate",
		"fallocate", "fsync", "lseek", "FIEMAP", "fgetxattr", "readdir",
		"copy_file_range", "fadvise",
	};
	const char *name = what[c.op & 15];
	static const char tail[] = " took over 20 s\n";

	(void)sig;
	if (write(1, "FAIL: ", 6) < 0 || write(1, name, strlen(name)) < 0 ||
	    write(1, tail, sizeof(tail) - 1) < 0)
		_exit(4);
	_exit(3);
}

static void count(long r)
{
	if (r < 0)
		c.errors++;
}

/* One of the open files (op_open keeps the slots filled where it can). */
static int any_fd(void)
{
	int i = (int)below(NFDS);

	for (int n = 0; n < NFDS && c.fd[i] < 0; n++)
		i = (i + 1) % NFDS;
	return c.fd[i];
}

static void op_open(void)
{
	static const int flags[] = { O_RDONLY, O_RDWR, O_RDWR | O_DIRECT, O_RDONLY | O_DIRECT,
				     O_RDWR | O_TRUNC, O_WRONLY | O_APPEND };
	char path[512];
	int i = (int)below(NFDS), fd;

	snprintf(path, sizeof(path), "%s/%s", c.mnt, names[below(5)]);
	fd = open(path, flags[below(6)] | O_CLOEXEC);
	count(fd);
	if (fd < 0)
		return;
	if (c.fd[i] >= 0)
		close(c.fd[i]);
	c.fd[i] = fd;
}

/* An offset and a length, block-aligned half of the time (O_DIRECT needs it). */
static void range(uint64_t *off, size_t *len)
{
	*off = below(SPAN);
	*len = 1 + below(MAX_IO);
	if (below(2)) {
		*off &= ~4095ULL;
		*len = (*len + 4095) & ~4095UL;
	}
}

static void op_mmap(int write)
{
	struct sigaction sa = { .sa_handler = on_bus }, old;
	int fd = any_fd();
	size_t len = 4096 * (1 + below(16));
	off_t off = (off_t)(below(SPAN / 4096) * 4096);
	volatile uint8_t *p;

	p = mmap(NULL, len, write ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, off);
	if (p == MAP_FAILED)
		return count(-1);
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(c.bus, 1) == 0) {
		for (size_t i = 0; i < len; i += 4096) {
			if (write)
				p[i] = (uint8_t)rnd();
			else
				(void)p[i];
		}
		if (write)
			count(msync((void *)p, len, below(2) ? MS_SYNC : MS_ASYNC));
	} else {
		c.sigbus++;
	}
	sigaction(SIGBUS, &old, NULL);
	munmap((void *)p, len);
}

static void op_fiemap(void)
{
	struct {
		struct fiemap f;
		struct fiemap_extent e[16];
	} m;

	memset(&m, 0, sizeof(m));
	m.f.fm_start = below(SPAN);
	m.f.fm_length = below(2) ? FIEMAP_MAX_OFFSET : below(SPAN);
	m.f.fm_extent_count = 16;
	m.f.fm_flags = below(2) ? FIEMAP_FLAG_SYNC : 0;
	count(ioctl(any_fd(), FS_IOC_FIEMAP, &m));
}

static void op_readdir(void)
{
	DIR *d = opendir(c.mnt);
	struct dirent *e;
	struct stat st;
	char path[512];

	if (!d)
		return count(-1);
	while ((e = readdir(d)))
		;
	closedir(d);
	snprintf(path, sizeof(path), "%s/%s", c.mnt, names[below(5)]);
	count(stat(path, &st));
}

static void op_fallocate(void)
{
	static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE,
				     FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				     FALLOC_FL_ZERO_RANGE, FALLOC_FL_COLLAPSE_RANGE };
	uint64_t off;
	size_t len;

	range(&off, &len);
	count(fallocate(any_fd(), modes[below(5)], (off_t)off, (off_t)len));
}

static void one_op(void)
{
	uint64_t off;
	size_t len;
	loff_t in, out;
	char val[64];

	range(&off, &len);
	c.op = (int)below(16);
	switch (c.op) {
	case 0: case 1:
		op_open();
		break;
	case 2: case 3:
		count(pread(any_fd(), c.buf, len, (off_t)off));
		break;
	case 4: case 5:
		memset(c.buf, (int)rnd(), len);
		count(pwrite(any_fd(), c.buf, len, (off_t)off));
		break;
	case 6:
		op_mmap((int)below(2));
		break;
	case 7:
		count(ftruncate(any_fd(), (off_t)below(SPAN)));
		break;
	case 8:
		op_fallocate();
		break;
	case 9:
		count(below(3) ? fsync(any_fd()) : below(2) ? fdatasync(any_fd()) : syncfs(any_fd()));
		break;
	case 10:
		count(lseek(any_fd(), (off_t)off, below(2) ? SEEK_DATA : SEEK_HOLE));
		break;
	case 11:
		op_fiemap();
		break;
	case 12:
		count(fgetxattr(any_fd(), below(2) ? "user.iomap.state" : "security.capability",
				val, sizeof(val)));
		break;
	case 13:
		op_readdir();
		break;
	case 14:
		in = (loff_t)off;
		out = (loff_t)below(SPAN);
		count(copy_file_range(any_fd(), &in, any_fd(), &out, len, 0));
		break;
	default:
		count(posix_fadvise(any_fd(), 0, 0, POSIX_FADV_DONTNEED) ? -1 : 0);
	}
	c.ops++;
}

static int worker(int seed, time_t end)
{
	c.rng = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + 1;
	signal(SIGALRM, on_alarm);
	for (int i = 0; i < NFDS; i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", c.mnt, names[i % 3]);
		c.fd[i] = open(path, O_RDWR | O_CLOEXEC);
	}
	while (time(NULL) < end) {
		alarm(OP_SECONDS);
		one_op();
	}
	alarm(0);
	printf("ops=%lu errors=%lu sigbus=%lu\n", c.ops, c.errors, c.sigbus);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long ops = 0, errors = 0, sigbus = 0, o, e, b;
	char line[256];
	int seed, procs, p[2], st, fail = 0;
	time_t end;
	FILE *in;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: iomap-chaos MNT SEED SECONDS [PROCS]\n");
		return 2;
	}
	c.mnt = argv[1];
	seed = atoi(argv[2]);
	end = time(NULL) + atoi(argv[3]);
	procs = argc == 5 ? atoi(argv[4]) : 2;
	if (posix_memalign((void **)&c.buf, 4096, MAX_IO) || pipe(p))
		return 1;
	for (int i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return perror("iomap-chaos: fork"), 1;
		if (pid == 0) {
			dup2(p[1], 1);
			close(p[0]);
			_exit(worker(seed * 16 + i, end));
		}
	}
	close(p[1]);
	in = fdopen(p[0], "r");
	while (in && fscanf(in, "ops=%lu errors=%lu sigbus=%lu\n", &o, &e, &b) == 3) {
		ops += o;
		errors += e;
		sigbus += b;
	}
	/* a worker's FAIL line stops the scan: pass it on */
	while (in && fgets(line, sizeof(line), in))
		fputs(line, stdout);
	while (wait(&st) > 0) {
		if (WIFSIGNALED(st)) {
			printf("FAIL: a worker died of signal %d\n", WTERMSIG(st));
			fail = 1;
		} else if (WEXITSTATUS(st)) {
			printf("FAIL: a worker exited with status %d\n", WEXITSTATUS(st));
			fail = 1;
		}
	}
	if (!fail)
		printf("ops=%lu errors=%lu sigbus=%lu\n", ops, errors, sigbus);
	return fail;
}
