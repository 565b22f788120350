/* wmodify.h: iomap-check's checks of the changes to "w" other than pwrite:
 * shared mmap writes, truncate, fallocate, fsync, O_TRUNC, copy_file_range.
 * Each continues
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
/* copy_file_range from f into w, past its EOF: the kernel copies through
 * the page cache, the server is never asked (FUSE_COPY_FILE_RANGE) */
bool check_copy_range(struct wshadow *sh, const char *mnt);

#endif
