/* wfile.h: the writable file "w" of iomap-test-server, as a server sees it:
 * blocks allocated from a free-space map of the device, per-block state
 * (hole, unwritten, written), the size, and the operations that change them
 * (write mappings, FUSE_IOMAP_IOEND, truncate, fallocate). */
#ifndef IOMAP_WFILE_H
#define IOMAP_WFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "../../proto/fuse_iomap.h"

/* Set up an empty w of at most max bytes, with blocks from [base, end) of
 * the device; 0 or ENOMEM. */
int wf_init(uint64_t max, uint64_t base, uint64_t end);

/* The mapping of w at pos, allocating blocks for [pos, pos + count) first
 * if alloc (new blocks are unwritten). 0 or an errno (EFBIG, ENOSPC). */
int wf_map(uint64_t pos, uint64_t count, bool alloc, uint32_t dev,
	   struct fuse_iomap_io *m);

/* FUSE_IOMAP_IOEND: [pos, pos + written) reached the device (error 0):
 * convert the blocks it touches, grow the size to its end. */
int wf_ioend(uint64_t pos, uint64_t written, int error);

/* FUSE_SETATTR size / O_TRUNC: free the blocks past the new EOF block. */
int wf_truncate(uint64_t size);

/* FUSE_FALLOCATE: allocate (unwritten), punch or zero whole blocks. */
int wf_fallocate(uint32_t mode, uint64_t off, uint64_t len);

/* Start w as a crash can leave a file: size bytes over nblocks written
 * blocks from its start, some of them past EOF. 0, EFBIG or ENOSPC. */
int wf_preset(uint64_t size, uint64_t nblocks);

uint64_t wf_size(void);

/* The blocks (of M_BLOCK bytes) allocated for w. */
uint64_t wf_blocks(void);

/* One line describing w for the tests: "size=N blocks=N unwritten=N
 * free=N ioend-on-hole=N" (blocks: allocated, free: free-space map). */
void wf_describe(char *buf, size_t len);

#endif
