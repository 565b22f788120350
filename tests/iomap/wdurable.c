/* wdurable.c: the checks of wdurable.h. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include "model.h"
#include "wdurable.h"
#include "wshadow.h"

#define SIZE	(256 * M_KIB)

static struct wshadow sh;

/* Cache flushes the device completed (/sys/block/DEV/stat), or -1 */
static long long dev_flushes(const char *dev)
{
	char path[256], *copy = strdup(dev);
	unsigned long long v[17];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", basename(copy));
	free(copy);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < 17 && fscanf(f, "%llu", &v[n]) == 1)
		n++;
	fclose(f);
	return n == 17 ? (long long)v[15] : -1;
}

/* w is SIZE bytes of generation gen, written and fsynced: every block has
 * its place on the device */
static bool prepare(int fd, int gen)
{
	static uint8_t buf[SIZE];

	memset(&sh, 0, sizeof(sh));
	sh_pattern(buf, 0, SIZE, gen);
	if (!sh_pwrite(&sh, fd, buf, 0, SIZE))
		return false;
	if (fsync(fd))
		return fail("fsync: %s", strerror(errno));
	return true;
}

/* The extents of w (FIEMAP), for reading the device after umount */
static bool extents(int fd, struct fiemap *fm, unsigned int max)
{
	memset(fm, 0, sizeof(*fm) + max * sizeof(struct fiemap_extent));
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_extent_count = max;
	if (ioctl(fd, FS_IOC_FIEMAP, fm))
		return fail("FS_IOC_FIEMAP w: %s", strerror(errno));
	for (unsigned int i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];

		if ((e->fe_flags & FIEMAP_EXTENT_UNWRITTEN) || e->fe_physical < M_ALLOC_BASE ||
		    e->fe_physical + e->fe_length > M_DEV_SIZE || e->fe_logical >= SIZE ||
		    e->fe_length > SIZE - e->fe_logical)
			return fail("after fsync, extent %u: logical %llu physical %llu length %llu flags 0x%x",
				    i, (unsigned long long)e->fe_logical,
				    (unsigned long long)e->fe_physical,
				    (unsigned long long)e->fe_length, e->fe_flags);
	}
	return true;
}

bool check_umount_mmap(const char *mnt, const char *dev, bool *destroyed)
{
	static const struct { uint64_t off, len; } stores[] = {
		{ 100, 5000 }, { 60 * M_KIB, 64 * M_KIB + 7 }, { SIZE - 3000, 3000 },
	};
	struct { struct fiemap fm; struct fiemap_extent fe[64]; } r;
	static uint8_t buf[SIZE];
	uint8_t *p, *blk = NULL;
	int fd = open_w(mnt, O_RDWR), dfd = open(dev, O_RDWR | O_DIRECT);
	bool ok = true;

	*destroyed = false;
	if (fd < 0 || dfd < 0)
		ok = fail("open w or %s: %s", dev, strerror(errno));
	ok = ok && prepare(fd, 40) && extents(fd, &r.fm, 64);
	if (ok && posix_memalign((void **)&blk, 4096, SIZE))
		ok = fail("no memory");
	/* no stale mark from an earlier server */
	if (ok) {
		memset(blk, 0, M_BLOCK);
		if (pwrite(dfd, blk, M_BLOCK, DESTROY_MARK_ADDR) != (ssize_t)M_BLOCK)
			ok = fail("clear the mark on %s: %s", dev, strerror(errno));
	}
	p = ok ? mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (ok && p == MAP_FAILED)
		ok = fail("mmap w: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!ok)
		goto out;
	/* the file is closed: the stores are the only thing left dirty */
	for (size_t i = 0; i < sizeof(stores) / sizeof(stores[0]); i++) {
		sh_pattern(buf, stores[i].off, stores[i].len, 41 + i);
		memcpy(p + stores[i].off, buf, stores[i].len);
		sh_write(&sh, stores[i].off, buf, stores[i].len);
	}
	if (munmap(p, SIZE)) {
		ok = fail("munmap: %s", strerror(errno));
		goto out;
	}
	if (umount(mnt)) {
		ok = fail("umount %s: %s", mnt, strerror(errno));
		goto out;
	}
	/* at once: nothing may still be on its way to the device */
	if (pread(dfd, blk, M_BLOCK, DESTROY_MARK_ADDR) == (ssize_t)M_BLOCK)
		*destroyed = !memcmp(blk, DESTROY_MARK, sizeof(DESTROY_MARK));
	for (unsigned int i = 0; ok && i < r.fm.fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &r.fe[i];

		if (pread(dfd, blk, e->fe_length, e->fe_physical) != (ssize_t)e->fe_length)
			ok = fail("pread of the device: %s", strerror(errno));
		else
			ok = sh_compare(&sh, blk, e->fe_logical, e->fe_length,
					"raw device after umount");
	}
out:
	free(blk);
	if (dfd >= 0)
		close(dfd);
	return ok;
}

bool check_syncfs(const char *mnt, const char *dev, bool all)
{
	const char *how = all ? "sync" : "syncfs";
	static uint8_t buf[SIZE];
	int fd = open_w(mnt, O_RDWR), dfd = open(dev, O_RDONLY | O_DIRECT);
	long long f0, s0, s1;
	bool ok = true;

	memset(&sh, 0, sizeof(sh));
	if (fd < 0 || dfd < 0)
		ok = fail("open w or %s: %s", dev, strerror(errno));
	/* new blocks (unwritten until FUSE_IOMAP_IOEND), the size grows */
	sh_pattern(buf, 0, SIZE, all ? 51 : 50);
	ok = ok && sh_pwrite(&sh, fd, buf, 0, SIZE);
	f0 = dev_flushes(dev);
	s0 = server_state(fd, "syncfs");
	if (ok) {
		if (all)
			sync();
		else if (syncfs(fd))
			ok = fail("syncfs: %s", strerror(errno));
	}
	s1 = server_state(fd, "syncfs");
	if (ok && (s0 < 0 || s1 != s0 + 1))
		ok = fail("%s: the server saw %lld FUSE_SYNCFS, want %lld", how, s1, s0 + 1);
	if (ok && (f0 < 0 || dev_flushes(dev) <= f0))
		ok = fail("%s: the device completed no flush (%lld, then %lld)", how, f0,
			  dev_flushes(dev));
	/* on the device, converted, without fsync and with the cache intact */
	ok = ok && sh_check_raw(&sh, fd, dfd, NULL);
	if (ok && server_state(fd, "size") != (long long)SIZE)
		ok = fail("%s: the server's size is %lld, want %llu", how,
			  server_state(fd, "size"), (unsigned long long)SIZE);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return ok;
}
