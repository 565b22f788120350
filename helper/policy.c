/* helper/policy.c: the checks that apply when a user (not root) mounts
 * (SECURITY.md, mount.fuse.ext4(8)): a mount point the user owns and may
 * write, an image file the user owns, no allow_other unless the administrator
 * allows it, and at most user_mount_max ext4cell mounts per user. All of them
 * look at fds the helper already holds or at the kernel's mount table, never at
 * a path a second time. */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REFUSE_HINT "users may mount a device they may read (and for rw, write), an image " \
	"file they own, or an /etc/fstab entry marked user"

void helper_check_mountpoint(const char *mnt, int mntfd)
{
	struct stat st;

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

void helper_check_allow_other(const struct helper_opts *o, const struct helper_config *c)
{
	if (o->allow_other && !c->user_allow_other)
		helper_fail(EXIT_USAGE, "option 'allow_other' is not allowed for users unless "
			    "%s says user_allow_other", HELPER_CONFIG);
}

/* Is this mountinfo line an ext4cell mount with user_id=uid? The fields after
 * " - " are the type, the source and the superblock options. */
static bool users_mount(char *line, uid_t uid)
{
	char type[16], want[32], *sep = strstr(line, " - "), *opts, *save = NULL;

	if (!sep || sscanf(sep + 3, "%15s", type) != 1 || strncmp(type, "fuse.ext", 8) ||
	    type[8] < '2' || type[8] > '4' || type[9])
		return false;
	snprintf(want, sizeof(want), "user_id=%u", (unsigned)uid);
	opts = strrchr(line, ' ') + 1;
	for (char *o = strtok_r(opts, ",\n", &save); o; o = strtok_r(NULL, ",\n", &save))
		if (!strcmp(o, want))
			return true;
	return false;
}

unsigned helper_count_mounts(void)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned n = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		helper_fail(EXIT_SYSTEM, "cannot read /proc/self/mountinfo: %s", strerror(errno));
	while (getline(&line, &cap, f) > 0)
		n += users_mount(line, helper_uid());
	free(line);
	fclose(f);
	return n;
}

void helper_check_mount_count(const struct helper_config *c, unsigned have)
{
	if (have >= c->user_mount_max)
		helper_fail(EXIT_USAGE, "uid %u has reached its limit of %u ext4cell mounts "
			    "(user_mount_max in %s)", (unsigned)helper_uid(), c->user_mount_max,
			    HELPER_CONFIG);
}
