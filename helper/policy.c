/* helper/policy.c: the checks that apply when a user (not root) mounts
 * (SECURITY.md, mount.fuse.ext4(8)): a mount point the user owns and may
 * write, on an ordinary filesystem; an image file the user owns; no
 * allow_other unless the administrator allows it; none of the options that
 * widen access or logging; only the user's own ids. They look at fds the
 * helper already holds, never at a path a second time. (The limit on mounts
 * per user is instances.c.) */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define REFUSE_HINT "users may mount a device they may read (and for rw, write), an image " \
	"file they own, or an /etc/fstab entry marked user"

/* Filesystems a user's directory may live on and be mounted over: disk, memory
 * and network filesystems holding ordinary files. Pseudo filesystems (procfs,
 * sysfs, cgroupfs, debugfs...) are not here: a directory a user owns there
 * (a delegated cgroup, say) is an interface of the kernel, not a place for
 * files, and a mount over it hides that interface from everyone. */
static const unsigned long ordinary_fs[] = {
	EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC, F2FS_SUPER_MAGIC,
	TMPFS_MAGIC, RAMFS_MAGIC, MSDOS_SUPER_MAGIC, 0x2011bab0 /* exfat */,
	0x5346544e /* ntfs, ntfs3 */, 0x482b /* hfsplus */, 0x3153464a /* jfs */, REISERFS_SUPER_MAGIC,
	UDF_SUPER_MAGIC, NILFS_SUPER_MAGIC, 0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */,
	FUSE_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC, V9FS_MAGIC, NFS_SUPER_MAGIC,
	0xff534d42 /* cifs */, 0xfe534d42 /* smb2 */, ECRYPTFS_SUPER_MAGIC,
};

static void check_fs_type(const char *mnt, int mntfd)
{
	struct statfs sfs;

	if (fstatfs(mntfd, &sfs))
		helper_fail(EXIT_MOUNT, "mount point %s: %s", mnt, strerror(errno));
	for (size_t i = 0; i < sizeof(ordinary_fs) / sizeof(ordinary_fs[0]); i++)
		if ((unsigned long)sfs.f_type == ordinary_fs[i])
			return;
	helper_fail(EXIT_USAGE, "mount point %s: on a filesystem of type 0x%lx, not a disk, "
		    "memory or network filesystem: users may not mount there", mnt,
		    (unsigned long)sfs.f_type);
}

void helper_check_mountpoint(const char *mnt, int mntfd)
{
	struct stat st;

	check_fs_type(mnt, mntfd);
	if (fstat(mntfd, &st))
		helper_fail(EXIT_MOUNT, "mount point %s: %s", mnt, strerror(errno));
	if (st.st_uid != helper_uid())
		helper_fail(EXIT_USAGE, "mount point %s: owned by uid %u, not by you (uid %u): users "
			    "may mount only on directories they own", mnt, (unsigned)st.st_uid,
			    (unsigned)helper_uid());
	/* with the user's effective ids (dropped), on the fd */
	if (faccessat(mntfd, "", W_OK | X_OK, AT_EACCESS | AT_EMPTY_PATH))
		helper_fail(EXIT_USAGE, "mount point %s: you (uid %u) may not write to it: %s", mnt,
			    (unsigned)helper_uid(), strerror(errno));
}

void helper_check_image_owner(const char *source, const struct stat *st)
{
	if (S_ISREG(st->st_mode) && st->st_uid != helper_uid())
		helper_fail(EXIT_USAGE, "%s: owned by uid %u, not by you (uid %u): users may mount "
			    "only image files they own", source, (unsigned)st->st_uid,
			    (unsigned)helper_uid());
}

void helper_refuse_open(const char *source, bool ro)
{
	helper_fail(EXIT_USAGE, "%s: you (uid %u) may not open it%s: %s; " REFUSE_HINT, source, (unsigned)helper_uid(), ro ? "" : " read-write", strerror(errno));
}

/* An option only root (or an /etc/fstab entry) may give, refused for users. */
static void refuse_option(const char *opt, const char *why)
{
	helper_fail(EXIT_USAGE, "option '%s' is not allowed for users: %s", opt, why);
}

bool helper_in_group(gid_t gid)
{
	gid_t groups[NGROUPS_MAX];
	int n = getgroups(NGROUPS_MAX, groups);

	if (gid == getgid())
		return true;
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

void helper_check_user_options(const struct helper_opts *o, const struct helper_config *c)
{
	if (o->allow_other && !c->user_allow_other)
		helper_fail(EXIT_USAGE, "option '%s' is not allowed for users unless %s says "
			    "user_allow_other", strstr(o->server, "allow_other") ? "allow_other" :
			    "kernel", HELPER_CONFIG);
	if (o->fakeroot)
		refuse_option("fakeroot", "it turns off the kernel's permission checks");
	if (o->debug)
		refuse_option("debug", "it logs every request into the system log");
	if (o->has_uid && o->uid != helper_uid())
		helper_fail(EXIT_USAGE, "option 'uid=%u' is not allowed for users: only your own "
			    "uid (%u)", (unsigned)o->uid, (unsigned)helper_uid());
	if (o->has_gid && !helper_in_group(o->gid))
		helper_fail(EXIT_USAGE, "option 'gid=%u' is not allowed for users: only your own "
			    "gid (%u) or a group you are in", (unsigned)o->gid, (unsigned)getgid());
}
