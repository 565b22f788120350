/* tests/images/craft.h: what craft.c (the crafted-image generator) shares
 * with its family files: the open image, the seeded choices, field damage. */
#ifndef CRAFT_H
#define CRAFT_H

#include <ext2fs/ext2fs.h>
#include <stdbool.h>
#include <stdint.h>

extern ext2_filsys fs;	/* the copy being damaged */

struct field {
	const char *name;
	size_t off;
	int width;
};

uint64_t next(void);		/* the seed's next pseudo-random number */
unsigned below(unsigned n);	/* one of 0 .. n - 1 */
int fail(const char *what, errcode_t err);	/* says what failed; returns 1 */
uint64_t pick(uint64_t orig, int width);	/* a damaging value for a field */
blk64_t pick_block(blk64_t orig);	/* a damaging block number */
uint64_t get_field(const uint8_t *p, int width, bool big);
void put_field(uint8_t *p, int width, bool big, uint64_t v);
/* one of the n fields f of the structure at base damaged, its name logged */
void damage(uint8_t *base, size_t size, const struct field *f, unsigned n, bool big);
int inodes(bool symlinks);	/* the "inode" and "symlink" families */
int journal(void);		/* the "journal" family (craft_journal.c) */

#endif
