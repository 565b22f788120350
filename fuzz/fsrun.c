/* fuzz/fsrun.c: an image in a memfd, opened and closed by the server's own
 * open path, for the image and journal fuzz targets (fsrun.h). */
#include "fsrun.h"
#include "../server/fsopen.h"
#include "../server/log.h"

#include <et/com_err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

int fz_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("ext4cell-fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return fd;
}

/* libext2fs's own complaints about the image (com_err), silent as the log */
static void quiet(const char *who, errcode_t code, const char *fmt, va_list ap)
{
	if (!getenv("EC_FUZZ_LOG"))
		return;
	fprintf(stderr, "%s: %s ", who, error_message(code));
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int fz_open(struct fz_fs *f, int fd)
{
	int sv[2];
	char err[512];

	initialize_ext2_error_table();
	set_com_err_hook(quiet);
	memset(f, 0, sizeof(*f));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -1;
	f->c.fuse_fd = sv[0];
	f->peer = sv[1];
	f->c.dev_fd = fd;
	f->c.devname = "fuzz";
	f->c.opt.errors = EC_ERRORS_CONTINUE;
	f->c.opt.iomap = EC_IOMAP_OFF;
	if (ec_fs_open(&f->c, fd, err, sizeof(err))) {
		ec_log(EC_LOG_ERR, "%s\n", err);
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	return 0;
}

void fz_close(struct fz_fs *f)
{
	ec_fs_close(&f->c);
	close(f->c.fuse_fd);
	close(f->peer);
}
