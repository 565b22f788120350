/* helper/media/detach.c: takes down what ext4cell-media mounted on a mount
 * point. With the disk still there, a plain umount (the server writes back),
 * or a lazy detach when files are still open. With the disk gone, the FUSE
 * connection is aborted first (/sys/fs/fuse/connections/N/abort): no data can
 * reach the disk any more, so processes with open files get ENOTCONN instead
 * of waiting, and the server, whose device now fails every request, exits at
 * once; then the mount is detached. */
#include "media.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define MOUNTS_MAX	16	/* mounts stacked on one mount point */

/* s with mountinfo's \ooo escapes decoded, in place */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* The device number and type of the topmost mount on mnt; false if none. */
static int find_mount(const char *mnt, unsigned *minor, char *type, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *path, *sep, *save;
	size_t cap = 0;
	int found = 0;

	if (!f)
		helper_fail(EXIT_SYSTEM, "/proc/self/mountinfo: %s", strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		unsigned maj, min;
		char *t;

		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - TYPE SOURCE OPTIONS */
		if (!strtok_r(line, " ", &save) || !strtok_r(NULL, " ", &save))
			continue;
		t = strtok_r(NULL, " ", &save);
		if (!t || sscanf(t, "%u:%u", &maj, &min) != 2 || !strtok_r(NULL, " ", &save))
			continue;
		path = strtok_r(NULL, " ", &save);
		sep = path ? strstr(path + strlen(path) + 1, " - ") : NULL;
		if (!path || !sep)
			continue;
		unescape(path);
		if (strcmp(path, mnt))
			continue;
		found = 1;
		*minor = maj == 0 ? min : 0;
		t = strtok_r(sep + 3, " ", &save);
		snprintf(type, size, "%s", t ? t : "");
	}
	free(line);
	fclose(f);
	return found;
}

static void abort_connection(unsigned minor, const char *mnt)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", minor);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		fprintf(stderr, "%s: %s: cannot abort the FUSE connection (%s): %s\n", helper_name,
			mnt, path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

int media_detach(const char *mnt, int gone)
{
	char type[64];
	unsigned minor;
	int n = 0;

	while (n < MOUNTS_MAX && find_mount(mnt, &minor, type, sizeof(type))) {
		if (gone && minor && !strncmp(type, "fuse", 4))
			abort_connection(minor, mnt);
		if (gone || umount2(mnt, UMOUNT_NOFOLLOW)) {
			if (!gone && errno != EBUSY)
				helper_fail(EXIT_SYSTEM, "cannot unmount %s: %s", mnt, strerror(errno));
			if (umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW))
				helper_fail(EXIT_SYSTEM, "cannot detach %s: %s", mnt, strerror(errno));
		}
		n++;
	}
	return n;
}
