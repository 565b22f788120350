/* tests/host/notifylisten.c: systemd's notification socket (sd_notify(3)) for
 * tests. Binds an AF_UNIX datagram socket at PATH, runs COMMAND with
 * NOTIFY_SOCKET=PATH and appends every datagram it receives to OUT: its text,
 * then a line "-- N bytes" (N: the datagram's whole length, even beyond what
 * was read). SIGTERM and SIGINT are passed on to COMMAND. Exits with COMMAND's
 * status (128+N for signal N) once it has exited and the socket is drained.
 * usage: notifylisten PATH OUT COMMAND [ARG...] */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

static void pass_on(int sig)
{
	kill(child, sig);
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "notifylisten: %s: longer than sun_path\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror(path);
		return -1;
	}
	return fd;
}

/* Appends the datagram waiting on fd to out; false when there is none. */
static bool copy_datagram(int fd, FILE *out)
{
	static char buf[65536];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
	size_t got;

	if (n < 0)
		return false;
	got = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf);
	fwrite(buf, 1, got, out);
	fprintf(out, "%s-- %zd bytes\n", got && buf[got - 1] == '\n' ? "" : "\n", n);
	fflush(out);
	return true;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = pass_on };
	int fd, status;
	FILE *out;

	if (argc < 4) {
		fprintf(stderr, "usage: notifylisten PATH OUT COMMAND [ARG...]\n");
		return 2;
	}
	fd = listen_at(argv[1]);
	out = fopen(argv[2], "a");
	if (fd < 0 || !out || setenv("NOTIFY_SOCKET", argv[1], 1)) {
		if (!out)
			perror(argv[2]);
		return 2;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 2;
	}
	if (child == 0) {
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		pid_t done;

		if (poll(&p, 1, 100) > 0 && copy_datagram(fd, out))
			continue;
		done = waitpid(child, &status, WNOHANG);
		if (done == child)
			break;
		if (done < 0 && errno != EINTR) {
			perror("waitpid");
			return 2;
		}
	}
	while (copy_datagram(fd, out))
		;
	unlink(argv[1]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
