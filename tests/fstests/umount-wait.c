/* umount-wait.c: umount.fuse.ext4 for the fstests guest. A classic (non-
 * fuseblk) FUSE unmount returns before the server has let go of its device,
 * so a mkfs or fsck right after umount(8) finds the device busy (the helper
 * hands the server an O_EXCL descriptor). This unmounts MOUNTPOINT, then waits
 * until the source device can be opened with O_EXCL, which is exactly what
 * the next mkfs or fsck needs: bounded (--wait SECONDS, default 30), never a
 * fixed sleep.
 *   umount.fuse.ext4 MOUNTPOINT [-flags...] [-t TYPE] [--wait SECONDS]
 * umount(8) calls it as /sbin/umount.fuse.ext4 MOUNTPOINT [-dflnrv] [-t TYPE].
 * Flags: -l lazy, -f force; the rest are accepted and ignored.
 * Exit status: 0 unmounted and the device free; 1 unmount failed; 2 usage;
 * 3 unmounted but the device still busy after the wait. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The source of the mount at MNT (the last one, if stacked), from
 * /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MNT OPTS ... - TYPE SOURCE". */
static int mount_source(const char *mnt, char *src, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], point[4096], source[4096];
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(dash + 3, "%*s %4095s", source) != 1)
			continue;
		if (!strcmp(point, mnt) && strlen(source) < len) {
			strcpy(src, source);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *mnt = NULL;
	char src[4096] = "", real[4096];
	double limit = 30, end;
	struct stat st;
	int flags = 0, fd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--wait") && i + 1 < argc)
			limit = atof(argv[++i]);
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			i++;
		else if (argv[i][0] == '-')
			for (const char *c = argv[i] + 1; *c; c++)
				flags |= *c == 'l' ? MNT_DETACH : *c == 'f' ? MNT_FORCE : 0;
		else if (!mnt)
			mnt = argv[i];
		else
			mnt = NULL, argc = 0;
	}
	if (!mnt || limit <= 0) {
		fprintf(stderr, "usage: umount.fuse.ext4 MOUNTPOINT [-lf] [-t TYPE] [--wait SECONDS]\n");
		return 2;
	}
	if (realpath(mnt, real))
		mnt = real;
	if (mount_source(mnt, src, sizeof(src)) < 0)
		src[0] = '\0';
	if (umount2(mnt, flags) < 0) {
		fprintf(stderr, "umount.fuse.ext4: %s: %s\n", mnt, strerror(errno));
		return 1;
	}
	if (stat(src, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0;	/* an image file: nothing holds it exclusively */
	for (end = now() + limit;; usleep(10000)) {
		fd = open(src, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EBUSY || now() > end)
			break;
	}
	fprintf(stderr, "umount.fuse.ext4: %s unmounted, but %s is still in use after %g s: %s\n",
		mnt, src, limit, strerror(errno));
	return 3;
}
