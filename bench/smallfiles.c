/* bench/smallfiles.c: times creating, stat-ing and unlinking N empty files in
 * one directory; prints "create S", "stat S", "unlink S" (seconds). With
 * "fsync": times N appends of 4 KiB to DIR/appended, each followed by fsync
 * (what a database or a mail spool does); prints "fsync S".
 * usage: smallfiles DIR N [fsync] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int appends(const char *dir, long n)
{
	char path[4096], block[4096];
	double t = now();
	int fd;

	memset(block, 'a', sizeof(block));
	snprintf(path, sizeof(path), "%s/appended", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0644);
	for (long i = 0; fd >= 0 && i < n; i++) {
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block) || fsync(fd)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0 || close(fd)) {
		perror(path);
		return 1;
	}
	printf("fsync %.3f\n", now() - t);
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct stat st;
	double t;
	long i, n;

	if (argc != 3 && (argc != 4 || strcmp(argv[3], "fsync"))) {
		fprintf(stderr, "usage: smallfiles DIR N [fsync]\n");
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
	if (argc == 4)
		return appends(argv[1], n);
	t = now();
	for (i = 0; i < n; i++) {
		int fd;
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd < 0 || close(fd)) {
			perror(path);
			return 1;
		}
	}
	printf("create %.3f\n", now() - t);
	t = now();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		if (stat(path, &st)) {
			perror(path);
			return 1;
		}
	}
	printf("stat %.3f\n", now() - t);
	t = now();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		if (unlink(path)) {
			perror(path);
			return 1;
		}
	}
	printf("unlink %.3f\n", now() - t);
	return 0;
}
