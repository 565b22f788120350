/* wmodify.h: iomap-check's checks of the changes to "w" other than pwrite:
 * shared mmap writes, truncate, fallocate, fsync, O_TRUNC. Each continues
 * from the shadow the earlier checks left and returns false with why set. */
#ifndef IOMAP_WMODIFY_H
#define IOMAP_WMODIFY_H

#include <stdbool.h>

#include "wshadow.h"

bool check_mmap_write(struct wshadow *sh, const char *mnt);
bool check_truncate(struct wshadow *sh, const char *mnt);
bool check_fallocate(struct wshadow *sh, const char *mnt);
bool check_fsync(struct wshadow *sh, const char *mnt, const char *dev);
bool check_modify_raw(const struct wshadow *sh, const char *mnt, const char *dev);
bool check_otrunc(struct wshadow *sh, const char *mnt);

#endif
