/* helper/instances.c: user_mount_max counts what a user's mounts cost the
 * machine, not lines in a mount table: one live server instance (and its loop
 * device) per mount, from the moment the helper holds the device until the
 * server exits, whether or not the mount is still attached (umount -l leaves
 * a server serving a process that stayed inside) and including helpers still
 * talking to a server.
 *
 * The device fd the server will hold carries the proof of life: the helper
 * takes a shared flock on it before it connects to the server socket, and
 * the server inherits that open file (SCM_RIGHTS), so the lock lasts exactly
 * as long as someone still uses the device for this mount. Each such device
 * has a record /run/ext4cell-users/UID/MAJOR:MINOR; a record whose device
 * (its /dev node as sysfs names it) can be locked exclusively belongs to a
 * finished instance and is removed.
 * Counting and adding a record happen under an exclusive lock on the user's
 * directory, so concurrent helpers of one user cannot both take the last
 * slot; the number of connections a user can have open to the server socket
 * is bounded by the same limit. */
#include "helper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define USERS_DIR	"/run/ext4cell-users"
#define LOCK_WAIT_MS	10000	/* another helper of the same user counting */
#define DEV_WAIT_MS	5000	/* udevd's brief exclusive lock (BLKRRPART after a
				 * writer closed the device, e.g. the last server) */

static int open_dir(int at, const char *name)
{
	int fd;

	if (mkdirat(at, name, 0700) && errno != EEXIST)
		return -1;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		struct stat st;

		if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 077)) {
			close(fd);
			errno = EPERM;
			return -1;
		}
	}
	return fd;
}

/* flock(fd, op | LOCK_NB) until it succeeds, fails otherwise than by
 * conflict, or max_ms have passed; 0, or -1 with errno. */
static int flock_wait(int fd, int op, int max_ms)
{
	for (int ms = 0; flock(fd, op | LOCK_NB); ms += 10) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (errno != EWOULDBLOCK || ms >= max_ms)
			return -1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The user's record directory, locked exclusively (bounded wait). */
static int lock_user_dir(void)
{
	char name[16];
	int top, dir = -1;

	snprintf(name, sizeof(name), "%u", (unsigned)helper_uid());
	top = open_dir(AT_FDCWD, USERS_DIR);
	if (top >= 0) {
		dir = open_dir(top, name);
		close(top);
	}
	if (dir < 0)
		helper_fail(EXIT_SYSTEM, "%s/%s (root's, mode 0700): %s", USERS_DIR, name,
			    strerror(errno));
	if (flock_wait(dir, LOCK_EX, LOCK_WAIT_MS))
		helper_fail(EXIT_SYSTEM, "%s/%s: cannot lock it: %s", USERS_DIR, name,
			    errno == EWOULDBLOCK ? "another mount.fuse.ext4 of yours "
			    "holds it" : strerror(errno));
	return dir;
}

/* /dev/NAME for the block device "MAJOR:MINOR", as the kernel names it
 * (DEVNAME in sysfs: what devtmpfs and udev create); false if there is none. */
static bool node_path(const char *dev, char *path, size_t len)
{
	char uevent[64], line[128];
	bool found = false;
	FILE *f;

	snprintf(uevent, sizeof(uevent), "/sys/dev/block/%s/uevent", dev);
	f = fopen(uevent, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		found = !strncmp(line, "DEVNAME=", 8) && line[8] && !strstr(line, "..") &&
			snprintf(path, len, "/dev/%s", line + 8) < (int)len;
	}
	if (f)
		fclose(f);
	return found;
}

/* Is the device of record NAME ("MAJOR:MINOR") still held by an instance? */
static bool live(const char *name)
{
	char path[PATH_MAX];
	bool held;
	int fd;

	if (!node_path(name, path, sizeof(path)))
		return false;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	held = flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

static unsigned count_live(int dir)
{
	int scan = dup(dir);
	DIR *d = scan >= 0 ? fdopendir(scan) : NULL;
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		helper_fail(EXIT_SYSTEM, "%s: %s", USERS_DIR, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (live(e->d_name))
			n++;
		else
			unlinkat(dir, e->d_name, 0);
	}
	closedir(d);
	return n;
}

/* The device must be opened through the system's own node for it (/dev/NAME
 * of its sysfs entry), so that whoever counts later locks the same inode. */
static void check_node(const char *source, int devfd, char *name, size_t len)
{
	struct stat mine, sys;
	char path[PATH_MAX];

	if (fstat(devfd, &mine) || !S_ISBLK(mine.st_mode))
		helper_fail(EXIT_MOUNT, "%s: not a block device", source);
	snprintf(name, len, "%u:%u", major(mine.st_rdev), minor(mine.st_rdev));
	if (!node_path(name, path, sizeof(path)))
		snprintf(path, sizeof(path), "/dev (none for %s)", name);
	if (lstat(path, &sys) || sys.st_dev != mine.st_dev || sys.st_ino != mine.st_ino)
		helper_fail(EXIT_USAGE, "%s: not the system's device node %s: users mount block "
			    "devices through /dev", source, path);
}

void helper_instance_register(const struct helper_config *c, const char *source, int devfd)
{
	char name[32];
	unsigned have;
	int dir, rec;

	helper_privs_raise();
	check_node(source, devfd, name, sizeof(name));
	dir = lock_user_dir();
	have = count_live(dir);
	if (have >= c->user_mount_max)
		helper_fail(EXIT_USAGE, "uid %u has reached its limit of %u ext4cell mounts "
			    "(user_mount_max in %s)", (unsigned)helper_uid(), c->user_mount_max,
			    HELPER_CONFIG);
	/* after counting: a finished instance's record of the same device is gone */
	if (flock_wait(devfd, LOCK_SH, DEV_WAIT_MS))
		helper_fail(EXIT_MOUNT, "%s: cannot lock the device: %s", source,
			    errno == EWOULDBLOCK ? "another program holds it locked "
			    "exclusively (a partitioning tool?); not mounted" : strerror(errno));
	rec = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (rec < 0)
		helper_fail(EXIT_SYSTEM, "%s/%u/%s: %s", USERS_DIR, (unsigned)helper_uid(), name,
			    strerror(errno));
	close(rec);
	close(dir);
	helper_privs_drop();
	helper_say("%s: instance %u of at most %u for uid %u", source, have + 1,
		   c->user_mount_max, (unsigned)helper_uid());
}
