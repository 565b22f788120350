/* wdurable.h: iomap-check's checks that data written through the mount is on
 * the device when umount(2), syncfs(2) and sync(2) return, and that the
 * server was told (FUSE_DESTROY, FUSE_SYNCFS). Each starts from an empty "w"
 * on a fresh iomap-test-server and returns false with why set. */
#ifndef IOMAP_WDURABLE_H
#define IOMAP_WDURABLE_H

#include <stdbool.h>

/* Where iomap-test-server writes DESTROY_MARK when it answers FUSE_DESTROY:
 * past the bytes of the device the tests use. */
#define DESTROY_MARK_ADDR	M_DEV_SIZE
#define DESTROY_MARK		"iomap-test-server: FUSE_DESTROY answered"

/* Stores through a shared mapping, dirty after close and munmap, then
 * umount(2) of MNT: the stores are on DEV at once (umount-mmap), and the
 * server answered FUSE_DESTROY before umount returned (umount-destroy). */
bool check_umount_mmap(const char *mnt, const char *dev, bool *destroyed);

/* Buffered writes, then syncfs(2) (or sync(2)): the data is on DEV, the
 * server saw one more FUSE_SYNCFS, the device completed a cache flush. */
bool check_syncfs(const char *mnt, const char *dev, bool all);

#endif
