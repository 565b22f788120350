/* server/journal.c: jbd2 journal replay. */
#include "journal.h"

#include <stdio.h>

int ec_journal_replay(ext2_filsys fs, char *err, size_t errlen)
{
	(void)fs;
	snprintf(err, errlen, "replay is not implemented yet (use -o norecovery to mount "
		 "read-only, or run e2fsck)");
	return -1;
}
