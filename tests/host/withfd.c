/* tests/host/withfd.c: runs a command with a file open on a chosen
 * descriptor, optionally with O_DIRECT (the shell cannot ask for that).
 * usage: withfd [--direct] FD FILE COMMAND [ARG...] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int direct = argc > 1 && !strcmp(argv[1], "--direct"), fd, want;

	argv += direct;
	argc -= direct;
	if (argc < 4) {
		fprintf(stderr, "usage: withfd [--direct] FD FILE COMMAND [ARG...]\n");
		return 2;
	}
	want = atoi(argv[1]);
	fd = open(argv[2], O_RDWR | (direct ? O_DIRECT : 0));
	if (fd < 0 || (fd != want && (dup2(fd, want) < 0 || close(fd)))) {
		perror(argv[2]);
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
