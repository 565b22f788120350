/* whostile.c: the checks of whostile.h, run against iomap-test-server in
 * its hostile modes (tests/iomap/guest.sh says which check goes with which
 * mode). The kernel side of each is that the error reaches the caller and
 * that nothing hangs: no folio stays locked or under writeback. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "whostile.h"
#include "wshadow.h"

int expect_write_error(const char *mnt, int flags)
{
	const char *how = flags & O_DIRECT ? "direct" : "buffered";
	int fd = open_w(mnt, O_RDWR | flags);
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	int bad = 0;

	if (fd < 0)
		return printf("open w: %s\n", err_name(errno)), 1;
	if (posix_memalign((void **)&buf, 4096, 4096))
		return 1;
	memset(buf, 0xab, 4096);
	n = pwrite(fd, buf, 4096, 0);
	if (n < 0)
		printf("%s write error %s\n", how, err_name(errno));
	else
		printf("%s write returned %zd, want an error\n", how, n), bad = 1;
	if (fstat(fd, &st))
		printf("fstat: %s\n", err_name(errno));
	else if (st.st_size)
		printf("size %lld after a failed write\n", (long long)st.st_size), bad = 1;
	else
		printf("size 0\n");
	close(fd);
	free(buf);
	return bad;
}

int expect_wb_error(const char *mnt)
{
	static uint8_t buf[8192];
	int fd = open_w(mnt, O_RDWR);
	ssize_t n;
	int bad = 0;

	if (fd < 0)
		return printf("open w: %s\n", err_name(errno)), 1;
	memset(buf, 0xcd, sizeof(buf));
	n = pwrite(fd, buf, sizeof(buf), 0);
	if (n != (ssize_t)sizeof(buf))
		printf("buffered write returned %zd (%s), want %zu\n", n,
		       n < 0 ? err_name(errno) : "short", sizeof(buf)), bad = 1;
	if (fsync(fd))
		printf("fsync error %s\n", err_name(errno));
	else
		printf("fsync succeeded, want an error\n"), bad = 1;
	if (close(fd))
		printf("close error %s\n", err_name(errno));
	else
		printf("close ok\n");
	return bad;
}

static sigjmp_buf fault_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(fault_jmp, sig);
}

int expect_mkwrite_error(const char *mnt)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	volatile int bad = 0;
	int fd = open_w(mnt, O_RDWR);
	uint8_t *p;

	if (fd < 0)
		return printf("open w: %s\n", err_name(errno)), 1;
	if (ftruncate(fd, 8192))
		return printf("ftruncate: %s\n", err_name(errno)), 1;
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return printf("mmap: %s\n", err_name(errno)), 1;
	sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(fault_jmp, 1) == 0) {
		p[100] = 0x77;
		printf("the store succeeded, want SIGBUS\n");
		bad = 1;
	} else {
		printf("store: SIGBUS\n");
	}
	signal(SIGBUS, SIG_DFL);
	munmap(p, 8192);
	close(fd);
	return bad;
}

/* Wait up to 10 s until pid has exited (it is not our child). */
static int wait_gone(int pid)
{
	char path[64], st[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (int i = 0; i < 100; i++) {
		FILE *f = fopen(path, "r");
		char *r = f ? fgets(st, sizeof(st), f) : NULL;

		if (f)
			fclose(f);
		if (!r || strstr(st, ") Z "))
			return 0;
		usleep(100000);
	}
	return -1;
}

int expect_dirty_die(const char *mnt, int server_pid)
{
	static uint8_t buf[512 << 10];
	int fd = open_w(mnt, O_RDWR);
	ssize_t n;
	int bad = 0;

	if (fd < 0)
		return printf("open w: %s\n", err_name(errno)), 1;
	memset(buf, 0x5e, sizeof(buf));
	n = pwrite(fd, buf, sizeof(buf), 0);
	if (n != (ssize_t)sizeof(buf))
		return printf("buffered write returned %zd, want %zu\n", n, sizeof(buf)), 1;
	if (kill(server_pid, SIGKILL) || wait_gone(server_pid))
		return printf("cannot kill the server (pid %d)\n", server_pid), 1;
	printf("%zu bytes dirty, server killed\n", sizeof(buf));
	if (fsync(fd))
		printf("fsync error %s\n", err_name(errno));
	else
		printf("fsync succeeded, want an error\n"), bad = 1;
	n = pread(fd, buf, 4096, 0);
	printf("read after: %s\n", n < 0 ? err_name(errno) : "data");
	if (close(fd))
		printf("close error %s\n", err_name(errno));
	else
		printf("close ok\n");
	return bad;
}

int expect_cow_refused(const char *mnt)
{
	int dfd = open_w(mnt, O_RDWR | O_DIRECT), fd = open_w(mnt, O_RDWR);
	uint8_t *buf;
	int bad = 0;

	if (dfd < 0 || fd < 0)
		return printf("open w: %s\n", err_name(errno)), 1;
	if (posix_memalign((void **)&buf, 4096, 4096))
		return 1;
	memset(buf, 0x11, 4096);
	if (pwrite(dfd, buf, 4096, 0) != 4096) {
		printf("first write: %s\n", err_name(errno));
		bad = 1;
	} else if (pwrite(fd, buf, 512, 100) >= 0 || errno != EUCLEAN) {
		printf("overwrite: %s, want EUCLEAN\n", err_name(errno));
		bad = 1;
	} else if (pread(dfd, buf, 4096, 0) != 4096) {
		printf("read back: %s\n", err_name(errno));
		bad = 1;
	} else {
		for (int i = 0; i < 4096 && !bad; i++)
			if (buf[i] != 0x11)
				bad = printf("byte %d is 0x%02x after the refused overwrite\n", i,
					     buf[i]) > 0;
		if (!bad)
			printf("overwrite error EUCLEAN, data kept\n");
	}
	close(dfd);
	close(fd);
	free(buf);
	return bad;
}
