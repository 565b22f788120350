/* helper/media/media.h: what the parts of ext4cell-media share. */
#ifndef EC_MEDIA_H
#define EC_MEDIA_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "../helper.h"

/* Where a user's removable disks are mounted: MEDIA_ROOT/USER/NAME. */
#define MEDIA_ROOT	"/media"
/* What ext4cell-media remembers of each disk it mounted: the mount point, in
 * MEDIA_STATE/KERNEL-NAME, for the "remove" that follows. */
#define MEDIA_STATE	"/run/ext4cell/media"

/* place.c: makes MEDIA_ROOT/USER (root's, 0750, USER let in by an ACL entry)
 * and a fresh directory NAME in it owned by uid:gid, NAME from the first of
 * label, uuid, kname that gives a safe name (a number appended when taken);
 * its path into mnt. */
void media_place(const char *user, uid_t uid, gid_t gid, const char *label, const char *uuid,
		 const char *kname, char *mnt, size_t size);

/* detach.c: detaches every mount on mnt, aborting the FUSE connection first
 * when the disk is gone (nothing can reach it any more, and nothing may wait
 * for it); returns how many mounts it detached. */
int media_detach(const char *mnt, int gone);

#endif
