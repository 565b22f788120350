/* server/journal.h: replay of an internal jbd2 journal at mount time, and
 * the checked geometry of that journal (for the writer, jlog.h). */
#ifndef EC_JOURNAL_H
#define EC_JOURNAL_H

#include <ext2fs/ext2fs.h>

/* Replays the committed transactions of fs's internal journal onto the
 * device, then clears needs_recovery. fs must be open read-write.
 * Returns 0, or -1 with the reason in err. */
int ec_journal_replay(ext2_filsys fs, char *err, size_t errlen);

/* An internal journal's superblock, checked: magic, type, block size,
 * geometry within the journal inode, known features, checksum. */
struct ec_jsb {
	ext2_filsys fs;
	ext2_ino_t ino;
	unsigned int bs;		/* the filesystem's block size */
	__u32 maxlen, first, incompat, csum_seed;
	char *sb;			/* journal block 0, bs bytes (malloc) */
};

/* Loads and checks fs's journal superblock into *g; 0, or -1 with the
 * reason in err. The caller frees g->sb. */
int ec_journal_load(ext2_filsys fs, struct ec_jsb *g, char *err, size_t errlen);

#endif
