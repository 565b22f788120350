/* helper/kmount.c: the kernel side of a mount: /dev/fuse (with the iomap bit
 * where the kernel has FUSE_DEV_IOC_ADD_IOMAP) and the mount itself, made with
 * the fd-based mount API (fsopen, fsmount, move_mount onto the mount point's
 * fd) so that undoing it goes through the new mount's fd, never a path. */
#include "helper.h"
#include "../proto/fuse_iomap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

/* Flags of the superblock rather than of the mount, set through fsconfig(). */
static const struct {
	unsigned long ms;
	const char *name;
} sb_flags[] = {
	{ MS_RDONLY, "ro" }, { MS_SYNCHRONOUS, "sync" }, { MS_DIRSYNC, "dirsync" },
	{ MS_LAZYTIME, "lazytime" },
};


int helper_open_fuse(bool *iomap, bool want)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		helper_fail(EXIT_SYSTEM, "cannot open /dev/fuse: %s", strerror(errno));
	*iomap = false;
	if (!want) {
		helper_say("FUSE iomap not asked for: users' mounts use classic mode "
			   "(user_iomap in %s)", HELPER_CONFIG);
		return fd;
	}
	*iomap = !ioctl(fd, FUSE_DEV_IOC_ADD_IOMAP);
	if (*iomap)
		helper_say("the kernel allows FUSE iomap on this mount");
	else
		helper_say("the kernel has no FUSE iomap (%s): classic mode", strerror(errno));
	return fd;
}

/* fsconfig() takes strings of at most 255 bytes: a longer source name is
 * shown as "..." and its last 252 bytes (the file's own name is the end). */
#define FSCONFIG_MAX	256
static const char *fs_source(const char *source, char *buf)
{
	size_t n = strlen(source);

	if (n < FSCONFIG_MAX)
		return source;
	snprintf(buf, FSCONFIG_MAX, "...%s", source + n - (FSCONFIG_MAX - 4));
	return buf;
}

/* One fsconfig() setting: a string, or a flag when value is NULL. */
static void set(int fs, const char *key, const char *value, const char *source, const char *mnt)
{
	if (fsconfig(fs, value ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, key, value, 0))
		helper_fail(EXIT_MOUNT, "mounting %s on %s failed: %s (%s)", source, mnt,
			    strerror(errno), key);
}

/* mount(2)'s MS_* flags that are properties of the mount, as MOUNT_ATTR_*. */
static unsigned mount_attrs(unsigned long ms)
{
	return (ms & MS_RDONLY ? MOUNT_ATTR_RDONLY : 0) | (ms & MS_NOEXEC ? MOUNT_ATTR_NOEXEC : 0) |
	       (ms & MS_NOATIME ? MOUNT_ATTR_NOATIME : 0) |
	       (ms & MS_STRICTATIME ? MOUNT_ATTR_STRICTATIME : 0) |
	       (ms & MS_NODIRATIME ? MOUNT_ATTR_NODIRATIME : 0) | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
}

int helper_mount(const char *source, const char *type, int mntfd, const char *mnt,
		 int fusefd, const struct helper_opts *o, uint32_t verdict)
{
	unsigned long msflags = o->msflags;
	bool defperm = !o->fakeroot;
	char num[3][16], name[FSCONFIG_MAX];
	int fs, mfd;

	if (verdict & PROTO_VER_RO) {
		if (!(msflags & MS_RDONLY))
			helper_say("%s: the server allows read-only access only", source);
		msflags |= MS_RDONLY;
	}
	snprintf(num[0], sizeof(num[0]), "%d", fusefd);
	snprintf(num[1], sizeof(num[1]), "%u", (unsigned)getuid());
	snprintf(num[2], sizeof(num[2]), "%u", (unsigned)getgid());
	helper_say("mount -t %s -o fd=%s,rootmode=40000,user_id=%s,group_id=%s%s%s%s %s %s", type,
		   num[0], num[1], num[2], defperm ? ",default_permissions" : "",
		   o->allow_other ? ",allow_other" : "", msflags & MS_RDONLY ? ",ro" : "",
		   source, mnt);
	helper_privs_raise();
	fs = fsopen("fuse", FSOPEN_CLOEXEC);
	if (fs < 0)
		helper_fail(EXIT_MOUNT, "mounting %s on %s failed: fsopen: %s", source, mnt,
			    strerror(errno));
	set(fs, "source", fs_source(source, name), source, mnt);
	set(fs, "subtype", type + strlen("fuse."), source, mnt);
	set(fs, "fd", num[0], source, mnt);
	set(fs, "rootmode", "40000", source, mnt);
	set(fs, "user_id", num[1], source, mnt);
	set(fs, "group_id", num[2], source, mnt);
	if (defperm)
		set(fs, "default_permissions", NULL, source, mnt);
	if (o->allow_other)
		set(fs, "allow_other", NULL, source, mnt);
	/* the superblock's own flags */
	for (size_t i = 0; i < sizeof(sb_flags) / sizeof(sb_flags[0]); i++)
		if (msflags & sb_flags[i].ms)
			set(fs, sb_flags[i].name, NULL, source, mnt);
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		helper_fail(EXIT_MOUNT, "mounting %s on %s failed: %s", source, mnt, strerror(errno));
	/* The superblock now holds the connection and the server its own copy
	 * of the fd: from here on a helper stopped or killed cannot keep the
	 * connection alive after the server has gone (requests fail with
	 * ENOTCONN instead of waiting for ever). */
	close(fusefd);
	mfd = fsmount(fs, FSMOUNT_CLOEXEC, mount_attrs(msflags));
	if (mfd < 0 || move_mount(mfd, "", mntfd, "", MOVE_MOUNT_F_EMPTY_PATH |
				  MOVE_MOUNT_T_EMPTY_PATH))
		helper_fail(EXIT_MOUNT, "mounting %s on %s failed: %s", source, mnt, strerror(errno));
	helper_privs_drop();
	close(fs);
	return mfd;
}

void helper_unmount(int mfd)
{
	char self[32];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", mfd);
	helper_privs_raise();
	umount2(self, MNT_DETACH);
	helper_privs_drop();
}
