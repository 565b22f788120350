/* server/journal.h: replay of an internal jbd2 journal at mount time. */
#ifndef EC_JOURNAL_H
#define EC_JOURNAL_H

#include <ext2fs/ext2fs.h>

/* Replays the committed transactions of fs's internal journal onto the
 * device, then clears needs_recovery. fs must be open read-write.
 * Returns 0, or -1 with the reason in err. */
int ec_journal_replay(ext2_filsys fs, char *err, size_t errlen);

#endif
