/* server/freed.c: the runs of blocks freed since the last commit (freed.h). */
#include "freed.h"
#include "log.h"

#include <stdbool.h>
#include <stdlib.h>

void ec_freed_hold(struct ec_freed *f, ext2_filsys fs, blk64_t blk, blk64_t n)
{
	static bool said;

	if (f->n && f->runs[f->n - 1].start + f->runs[f->n - 1].len == blk) {
		f->runs[f->n - 1].len += n;
	} else {
		if (f->n == f->cap) {
			size_t cap = f->cap ? 2 * f->cap : 64;
			struct ec_freed_run *r = realloc(f->runs, cap * sizeof(*r));

			if (!r) {
				if (!said)
					ec_log(EC_LOG_WARNING, "ext4cell-server: out of memory: freed "
					       "blocks reused before the next commit\n");
				said = true;
				return;
			}
			f->runs = r;
			f->cap = cap;
		}
		f->runs[f->n].start = blk;
		f->runs[f->n++].len = n;
	}
	ext2fs_mark_block_bitmap_range2(fs->block_map, blk, (unsigned int)n);
}

void ec_freed_release(struct ec_freed *f, ext2_filsys fs)
{
	for (size_t i = 0; i < f->n; i++)
		ext2fs_unmark_block_bitmap_range2(fs->block_map, f->runs[i].start,
						  (unsigned int)f->runs[i].len);
	f->n = 0;
}

void ec_freed_free(struct ec_freed *f)
{
	free(f->runs);
	f->runs = NULL;
	f->n = f->cap = 0;
}
