/* fuzz/fsrun.h: what the image and journal fuzz targets share: an input
 * image in a memfd (the fuzzer's own copy, so writes never reach the
 * corpus), opened and closed with the server's own code (server/fsopen.c)
 * as a mount would, with a socket in place of /dev/fuse that collects the
 * handlers' replies. */
#ifndef EC_FUZZ_FSRUN_H
#define EC_FUZZ_FSRUN_H

#include "../server/ctx.h"

#include <stddef.h>
#include <stdint.h>

struct fz_fs {
	struct ec_ctx c;
	int peer;		/* the "kernel" end of c.fuse_fd */
};

/* A memfd holding size bytes of data, or -1. */
int fz_memfd(const uint8_t *data, size_t size);
/* Opens the filesystem on fd (not taken over) into f as a read-write mount
 * with errors=continue; 0, or -1 when the server refuses the image. */
int fz_open(struct fz_fs *f, int fd);
/* Closes what fz_open opened (the filesystem cleanly, as at unmount). */
void fz_close(struct fz_fs *f);

#endif
