/* server/freed.h: journaled writes keep the blocks freed since the last
 * commit out of the allocator until that commit is durable. A block freed
 * by the running transaction still belongs, in the committed filesystem,
 * to what freed it (a deleted file's data, an extent or directory block):
 * reused at once, file data written into it (by the kernel in iomap mode,
 * or directly) would land in a file or a metadata block a crash restores. */
#ifndef EC_FREED_H
#define EC_FREED_H

#include <ext2fs/ext2fs.h>
#include <stddef.h>

struct ec_freed {
	struct ec_freed_run {
		blk64_t start, len;
	} *runs;
	size_t n, cap;
};

/* Blocks [blk, blk + n) were just freed in fs: marks them in use again in
 * the in-memory bitmap only (counts and the bitmap written at the next
 * commit stay as freed). Out of memory: they stay free (logged). */
void ec_freed_hold(struct ec_freed *f, ext2_filsys fs, blk64_t blk, blk64_t n);

/* Before a commit: every held block free again in fs's bitmap. */
void ec_freed_release(struct ec_freed *f, ext2_filsys fs);

void ec_freed_free(struct ec_freed *f);

#endif
