/* bench/smallfiles.c: times creating, stat-ing and unlinking N empty files in
 * one directory; prints "create S", "stat S", "unlink S" (seconds).
 * usage: smallfiles DIR N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct stat st;
	double t;
	long i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: smallfiles DIR N\n");
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
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
