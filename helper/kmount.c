/* helper/kmount.c: the kernel side of a mount: /dev/fuse (with the iomap bit
 * where the kernel has FUSE_DEV_IOC_ADD_IOMAP) and the mount(2) call itself. */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#ifndef FUSE_DEV_IOC_ADD_IOMAP
#define FUSE_DEV_IOC_ADD_IOMAP	_IO(229, 101)	/* DESIGN.md section 2 */
#endif

int helper_open_fuse(bool *iomap)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		helper_fail(EXIT_SYSTEM, "cannot open /dev/fuse: %s", strerror(errno));
	*iomap = !ioctl(fd, FUSE_DEV_IOC_ADD_IOMAP);
	if (*iomap)
		helper_say("the kernel allows FUSE iomap on this mount");
	else
		helper_say("the kernel has no FUSE iomap (%s): classic mode", strerror(errno));
	return fd;
}

void helper_mount(const char *source, const char *type, int mntfd, const char *mnt,
		  int fusefd, unsigned long msflags, uint32_t verdict)
{
	char data[256], target[64];

	snprintf(data, sizeof(data), "fd=%d,rootmode=40000,user_id=%u,group_id=%u%s%s", fusefd,
		 (unsigned)getuid(), (unsigned)getgid(),
		 verdict & PROTO_VER_DEFPERM ? ",default_permissions" : "",
		 verdict & PROTO_VER_ALLOW_OTHER ? ",allow_other" : "");
	snprintf(target, sizeof(target), "/proc/self/fd/%d", mntfd);
	if (verdict & PROTO_VER_RO) {
		if (!(msflags & MS_RDONLY))
			helper_say("%s: the server allows read-only access only", source);
		msflags |= MS_RDONLY;
	}
	helper_say("mount -t %s -o %s %s %s", type, data, source, mnt);
	if (mount(source, target, type, msflags | MS_NOSUID | MS_NODEV, data))
		helper_fail(EXIT_MOUNT, "mounting %s on %s failed: %s", source, mnt, strerror(errno));
}
