/* wblocks.h: the block count of the writable file "w" of the iomap tests.
 * The server owns it: iomap-test-server reports in fuse_attr.blocks the
 * blocks it allocated for w (wf_blocks(), in 512-byte units) and says them
 * in user.iomap.state ("blocks=N", in blocks of M_BLOCK bytes). It
 * allocates when it answers a write mapping (FUSE_IOMAP_BEGIN with
 * FUSE_IOMAP_OP_WRITE), so after a write the kernel must ask it again
 * (FUSE_GETATTR) instead of showing the count it cached before. */
#ifndef IOMAP_WBLOCKS_H
#define IOMAP_WBLOCKS_H

#include <stdbool.h>
#include <stddef.h>

/* iomap-check blocks MNT, on a fresh server (w empty):
 *   blocks-after-write: a 256 KiB buffered write to w, then fstat: st_blocks
 *     is above 0 and what the server allocated, before and after fsync;
 *   blocks-after-direct: after ftruncate of w to 1 MiB, a 64 KiB O_DIRECT
 *     write into the hole inside the file (no size change), then fstat:
 *     st_blocks grew by the 64 KiB and is what the server allocated.
 * Each sets detail (for the "ok" line) or why. */
bool check_blocks_write(const char *mnt, char *detail, size_t len);
bool check_blocks_direct(const char *mnt, char *detail, size_t len);

#endif
