/* helper/media/media.c: ext4cell-media, run as root by ext4cell-media@.service,
 * which udev starts for a removable disk holding an ext2/3/4 filesystem
 * (units/61-ext4cell-media.rules). "add" mounts the disk for the user active on
 * its seat (logind) at /media/USER/NAME by running mount.fuse.ext4 as that
 * user: the helper's policy for users' mounts decides, exactly as when the
 * user types mount(8) (the rule gives the seat's user access to the disk, as
 * logind's uaccess does); "remove", when the disk is gone or the unit stops,
 * takes the mount down and removes the directory. Exit status: 0 done, or
 * nothing to do (automounting off, no one on the seat); 1 usage; 2 system;
 * otherwise mount.fuse.ext4's. */
#include "media.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-device.h>
#include <systemd/sd-login.h>
#include <unistd.h>

#ifndef MEDIA_HELPER
#define MEDIA_HELPER	"/usr/sbin/mount.fuse.ext4"
#endif
/* nosuid, nodev: the helper forces them for users anyway; flush: a file
 * closed after a change is on the disk (the server syncs), as udisks does for
 * removable vfat, since FUSE never passes sync(2) on to its server */
#define MEDIA_OPTIONS	"nosuid,nodev,noatime,flush"

static const char usage[] =
	"Usage: ext4cell-media add DEVICE\n"
	"       ext4cell-media remove DEVICE\n"
	"\n"
	"Mounts a removable disk with an ext2, ext3 or ext4 filesystem for the user\n"
	"active on its seat, at " MEDIA_ROOT "/USER/LABEL, through mount.fuse.ext4 run as\n"
	"that user (so the helper's policy for users' mounts applies), and takes it\n"
	"down again when the disk goes. ext4cell-media@.service runs it; udev starts\n"
	"that unit (61-ext4cell-media.rules). 'media_automount = no' in\n"
	"/etc/ext4cell.conf turns automounting off.\n"
	"\n"
	"Exit status: 0 done, or nothing to do (automounting off, no one active on\n"
	"the seat); 1 usage; 2 system error; otherwise mount.fuse.ext4's status.\n";

static void state_path(const char *dev, char *path, size_t size)
{
	const char *k = strrchr(dev, '/');

	k = k ? k + 1 : dev;
	if (!*k || !strcmp(k, ".") || !strcmp(k, ".."))
		helper_fail(EXIT_USAGE, "'%s' does not name a device", dev);
	snprintf(path, size, "%s/%s", MEDIA_STATE, k);
}

static const char *prop(sd_device *d, const char *key)
{
	const char *v = NULL;

	return sd_device_get_property_value(d, key, &v) < 0 ? NULL : v;
}

/* mount.fuse.ext4 DEV MNT -o OPTIONS as pw; its exit status */
static int mount_as(const struct passwd *pw, const char *dev, const char *mnt)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		helper_fail(EXIT_SYSTEM, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (chdir("/") || initgroups(pw->pw_name, pw->pw_gid) ||
		    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid)) {
			fprintf(stderr, "%s: cannot become %s: %s\n", helper_name, pw->pw_name,
				strerror(errno));
			_exit(EXIT_SYSTEM);
		}
		execl(MEDIA_HELPER, "mount.fuse.ext4", dev, mnt, "-o", MEDIA_OPTIONS, (char *)NULL);
		fprintf(stderr, "%s: %s: %s\n", helper_name, MEDIA_HELPER, strerror(errno));
		_exit(EXIT_SYSTEM);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			helper_fail(EXIT_SYSTEM, "waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_SYSTEM;
}

static int add(const char *dev)
{
	const char *type, *seat;
	struct helper_config c;
	char mnt[PATH_MAX], state[PATH_MAX];
	struct passwd *pw;
	sd_device *d __attribute__((cleanup(sd_device_unrefp))) = NULL;
	struct stat st;
	FILE *f;
	uid_t uid;
	int rc;

	if (stat(dev, &st))
		helper_fail(EXIT_MOUNT, "%s: %s", dev, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		helper_fail(EXIT_MOUNT, "%s: not a block device", dev);
	helper_read_config(&c);
	if (!c.media_automount) {
		fprintf(stderr, "%s: %s not mounted: automounting is off (media_automount = no in "
			"%s)\n", helper_name, dev, HELPER_CONFIG);
		return 0;
	}
	rc = sd_device_new_from_devnum(&d, 'b', st.st_rdev);
	if (rc < 0)
		helper_fail(EXIT_MOUNT, "%s: not a device udev knows: %s", dev, strerror(-rc));
	type = prop(d, "ID_FS_TYPE");
	if (!type || (strcmp(type, "ext2") && strcmp(type, "ext3") && strcmp(type, "ext4")))
		helper_fail(EXIT_MOUNT, "%s: not mounted: holds no ext2/ext3/ext4 filesystem "
			    "(udev found '%s')", dev, type ? type : "nothing");
	seat = prop(d, "ID_SEAT");
	seat = seat && *seat ? seat : "seat0";
	if (sd_seat_get_active(seat, NULL, &uid) < 0) {
		fprintf(stderr, "%s: %s not mounted: no one is active on %s\n", helper_name, dev,
			seat);
		return 0;
	}
	pw = getpwuid(uid);
	if (!pw)
		helper_fail(EXIT_SYSTEM, "the user active on %s (uid %u) has no passwd entry", seat,
			    (unsigned)uid);
	state_path(dev, state, sizeof(state));
	media_place(pw->pw_name, pw->pw_uid, pw->pw_gid, prop(d, "ID_FS_LABEL"),
		    prop(d, "ID_FS_UUID"), strrchr(state, '/') + 1, mnt, sizeof(mnt));
	if (mkdir("/run/ext4cell", 0755) && errno != EEXIST)
		helper_fail(EXIT_SYSTEM, "/run/ext4cell: %s", strerror(errno));
	if (mkdir(MEDIA_STATE, 0700) && errno != EEXIST)
		helper_fail(EXIT_SYSTEM, "%s: %s", MEDIA_STATE, strerror(errno));
	f = fopen(state, "we");
	if (!f || fprintf(f, "%s\n", mnt) < 0 || fclose(f))
		helper_fail(EXIT_SYSTEM, "%s: %s", state, strerror(errno));
	rc = mount_as(pw, dev, mnt);
	if (rc) {
		rmdir(mnt);
		unlink(state);
		fprintf(stderr, "%s: %s not mounted for %s (mount.fuse.ext4 exit status %d)\n",
			helper_name, dev, pw->pw_name, rc);
		return rc;
	}
	fprintf(stderr, "%s: %s mounted on %s for %s\n", helper_name, dev, mnt, pw->pw_name);
	return 0;
}

static int remove_dev(const char *dev)
{
	char mnt[PATH_MAX], state[PATH_MAX];
	struct stat st;
	int gone, n;
	FILE *f;

	state_path(dev, state, sizeof(state));
	f = fopen(state, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		helper_fail(EXIT_SYSTEM, "%s: %s", state, strerror(errno));
	}
	if (!fgets(mnt, sizeof(mnt), f) || strncmp(mnt, MEDIA_ROOT "/", strlen(MEDIA_ROOT) + 1))
		helper_fail(EXIT_SYSTEM, "%s: no mount point of ours in it", state);
	fclose(f);
	mnt[strcspn(mnt, "\n")] = 0;
	gone = stat(dev, &st) || !S_ISBLK(st.st_mode);
	n = media_detach(mnt, gone);
	if (rmdir(mnt) && errno != ENOENT)
		fprintf(stderr, "%s: %s left in place: %s\n", helper_name, mnt, strerror(errno));
	unlink(state);
	fprintf(stderr, "%s: %s %s (%d mount%s)\n", helper_name, mnt,
		gone ? "detached: the disk is gone" : "unmounted", n, n == 1 ? "" : "s");
	return 0;
}

int main(int argc, char **argv)
{
	helper_name = "ext4cell-media";
	helper_privs_init();
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "add") && strcmp(argv[1], "remove"))) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (getuid() != 0)
		helper_fail(EXIT_USAGE, "only root runs ext4cell-media (ext4cell-media@.service)");
	return !strcmp(argv[1], "add") ? add(argv[2]) : remove_dev(argv[2]);
}
