/* helper/source.c: opens the source to mount: a block device exclusively, a
 * regular file through a new autoclear loop device (gone when the server, its
 * last user, closes it; set up as root, on the fd opened with the caller's
 * rights). The only look at the image is the ext2 magic number. */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXT2_MAGIC_OFFSET	(1024 + 56)	/* s_magic in the superblock */
#define EXT2_MAGIC		0xef53
#define LOOP_TRIES		8		/* another process may take a free loop */

static int open_loop(const char *source, int filefd, bool ro)
{
	struct loop_config cfg;
	char path[64];
	int ctl, n, fd, tries;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		helper_fail(EXIT_SYSTEM, "%s: cannot open /dev/loop-control for a loop device: %s",
			    source, strerror(errno));
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (uint32_t)filefd;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (ro ? LO_FLAGS_READ_ONLY : 0);
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", source);
	for (tries = 0; tries < LOOP_TRIES; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			break;
		snprintf(path, sizeof(path), "/dev/loop%d", n);
		fd = open(path, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (fd < 0)
			break;
		if (!ioctl(fd, LOOP_CONFIGURE, &cfg)) {
			close(ctl);
			helper_say("%s: set up %s (autoclear%s)", source, path, ro ? ", read-only" : "");
			return fd;
		}
		close(fd);
		if (errno != EBUSY)
			break;
	}
	helper_fail(EXIT_SYSTEM, "%s: cannot set up a loop device: %s", source, strerror(errno));
}

static void check_magic(const char *source, int fd)
{
	uint8_t m[2];
	ssize_t n = pread(fd, m, sizeof(m), EXT2_MAGIC_OFFSET);

	if (n < 0)
		helper_fail(EXIT_MOUNT, "%s: cannot read the superblock: %s", source, strerror(errno));
	if (n != sizeof(m) || (m[0] | m[1] << 8) != EXT2_MAGIC)
		helper_fail(EXIT_MOUNT, "%s: not an ext2/ext3/ext4 filesystem (no superblock magic)",
			    source);
}

/* Reopens a block device (through its fd, not its name) with O_EXCL, which the
 * kernel refuses (EBUSY) while the device is mounted or claimed by anyone else,
 * and which keeps it claimed while the server holds the fd: nothing mounts it
 * twice. */
static int claim_device(const char *source, int fd, bool ro)
{
	char self[64];
	int excl;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	excl = open(self, (ro ? O_RDONLY : O_RDWR) | O_EXCL | O_CLOEXEC | O_NOCTTY);
	if (excl < 0 && errno == EBUSY)
		helper_fail(EXIT_MOUNT, "%s: the device is in use (mounted, or held by "
			    "another program); not mounted", source);
	if (excl < 0)
		helper_fail(EXIT_MOUNT, "cannot open %s: %s", source, strerror(errno));
	close(fd);
	return excl;
}

int helper_open_source(const char *source, const char *path, bool ro, bool no_symlinks,
		       struct stat *st)
{
	int flags = (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	int fd = no_symlinks ? helper_open_nosymlinks(path, flags) : open(path, flags);

	if (fd < 0 && helper_denied(errno))
		helper_refuse_open(source, ro);
	if (fd < 0)
		helper_fail(EXIT_MOUNT, "cannot open %s %s: %s", source,
			    ro ? "read-only" : "read-write", strerror(errno));
	if (fstat(fd, st))
		helper_fail(EXIT_MOUNT, "%s: %s", source, strerror(errno));
	if (!S_ISREG(st->st_mode) && !S_ISBLK(st->st_mode))
		helper_fail(EXIT_MOUNT, "%s: not a block device or a regular file", source);
	/* O_NONBLOCK only kept a FIFO from blocking the open */
	if (fcntl(fd, F_SETFL, 0))
		helper_fail(EXIT_SYSTEM, "%s: %s", source, strerror(errno));
	return S_ISBLK(st->st_mode) ? claim_device(source, fd, ro) : fd;
}

int helper_attach_source(const char *source, int fd, const struct stat *st, bool ro)
{
	if (S_ISREG(st->st_mode)) {
		int loop;

		helper_privs_raise();
		loop = open_loop(source, fd, ro);
		helper_privs_drop();
		close(fd);
		fd = loop;
	}
	check_magic(source, fd);
	return fd;
}
