/* server/fsopen.h: opening a filesystem on a device fd under the feature
 * policy, and closing it cleanly. */
#ifndef EC_FSOPEN_H
#define EC_FSOPEN_H

#include "ctx.h"

/* Opens the filesystem on devfd into c (c->opt and c->devname already set).
 * Returns 0, or -1 with a human-readable reason in err. */
int ec_fs_open(struct ec_ctx *c, int devfd, char *err, size_t errlen);
/* Frees inodes left unlinked, marks the filesystem clean and closes it.
 * Returns 0, or -1 after printing why. */
int ec_fs_close(struct ec_ctx *c);
/* Writes everything libext2fs holds (superblock, descriptors, bitmaps) and
 * syncs the device: with the journal, one commit. */
errcode_t ec_fs_sync(struct ec_ctx *c);

#endif
