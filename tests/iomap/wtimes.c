/* wtimes.c: iomap-check's checks of the times of "w" (wtimes.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "wshadow.h"
#include "wtimes.h"

#define BLK	4096
#define MAPLEN	(2 * BLK)

static const char *const how_name[WT_HOWS] = {
	"a buffered write", "an O_DIRECT write", "ftruncate",
	"a store through a shared mapping after close",
};

/* a before b */
static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static bool ts_equal(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* stat(2) of MNT/w: no open, so no close that would write the inode back */
static bool stat_times(const char *mnt, struct timespec *m, struct timespec *c)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", mnt, M_W_NAME);
	if (stat(path, &st))
		return fail("stat %s: %s", path, strerror(errno));
	*m = st.st_mtim;
	*c = st.st_ctim;
	return true;
}

bool wt_begin(struct wt_run *r, const char *mnt)
{
	memset(r, 0, sizeof(*r));
	r->mnt = mnt;
	r->fd = open_w(mnt, O_RDWR);
	r->dfd = open_w(mnt, O_RDWR | O_DIRECT);
	if (r->fd < 0 || r->dfd < 0)
		return fail("open w: %s", strerror(errno));
	return stat_times(mnt, &r->m, &r->c);
}

/* The store of WT_MMAP: map w, close the files, store */
static bool store_after_close(struct wt_run *r, uint8_t **map)
{
	*map = mmap(NULL, MAPLEN, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (*map == MAP_FAILED)
		return fail("mmap w: %s", strerror(errno));
	close(r->fd);
	close(r->dfd);
	r->fd = r->dfd = -1;
	nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	(*map)[100] ^= 0xff;	/* the write fault */
	return true;
}

bool wt_step(struct wt_run *r, enum wt_how how)
{
	static uint8_t buf[BLK] __attribute__((aligned(BLK)));
	struct timespec m, c, m2, c2;
	uint8_t *map = MAP_FAILED;

	if (r->fd < 0)
		return r->mnt ? fail("w is closed") : false;
	/* the kernel's clock moves in ticks: let one pass */
	nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	sh_pattern(buf, 0, BLK, 90 + how);
	switch (how) {
	case WT_BUFFERED:
		if (pwrite(r->fd, buf, BLK, 0) != BLK)
			return fail("buffered pwrite of w: %s", strerror(errno));
		break;
	case WT_DIRECT:
		if (pwrite(r->dfd, buf, BLK, BLK) != BLK)
			return fail("O_DIRECT pwrite of w: %s", strerror(errno));
		break;
	case WT_TRUNCATE:
		if (ftruncate(r->fd, BLK + 1000))
			return fail("ftruncate w: %s", strerror(errno));
		break;
	case WT_MMAP:
		if (!store_after_close(r, &map))
			return false;
		break;
	default:
		return fail("no such step %d", how);
	}
	if (!stat_times(r->mnt, &m, &c))
		return false;
	if (!ts_before(&r->m, &m) || !ts_before(&r->c, &c))
		return fail("after %s: mtime %lld.%09ld ctime %lld.%09ld, before %lld.%09ld %lld.%09ld",
			    how_name[how], (long long)m.tv_sec, m.tv_nsec, (long long)c.tv_sec,
			    c.tv_nsec, (long long)r->m.tv_sec, r->m.tv_nsec,
			    (long long)r->c.tv_sec, r->c.tv_nsec);
	r->m = m;
	r->c = c;
	if (map == MAP_FAILED)
		return true;
	/* nothing holds w now: the kernel may forget it, not its times */
	if (munmap(map, MAPLEN))
		return fail("munmap w: %s", strerror(errno));
	if (drop_caches())
		return fail("drop_caches: %s", strerror(errno));
	if (!stat_times(r->mnt, &m2, &c2))
		return false;
	if (!ts_equal(&m, &m2) || !ts_equal(&c, &c2))
		return fail("after munmap and drop_caches: mtime %lld.%09ld ctime %lld.%09ld, before %lld.%09ld %lld.%09ld",
			    (long long)m2.tv_sec, m2.tv_nsec, (long long)c2.tv_sec, c2.tv_nsec,
			    (long long)m.tv_sec, m.tv_nsec, (long long)c.tv_sec, c.tv_nsec);
	return true;
}

/* The times of w the server stores (user.iomap.state) */
static bool server_times(int fd, struct timespec *m, struct timespec *c)
{
	static const char *const keys[] = { "mtime", "mtime_ns", "ctime", "ctime_ns" };
	long long v[4];

	for (int i = 0; i < 4; i++)
		if ((v[i] = server_state(fd, keys[i])) < 0)
			return fail("user.iomap.state of w has no %s", keys[i]);
	*m = (struct timespec){ (time_t)v[0], (long)v[1] };
	*c = (struct timespec){ (time_t)v[2], (long)v[3] };
	return true;
}

bool wt_fsync(struct wt_run *r)
{
	struct timespec m, c, sm, sc;

	if (r->fd < 0)
		return r->mnt ? fail("w is closed") : false;
	if (fsync(r->fd))
		return fail("fsync w: %s", strerror(errno));
	if (!stat_times(r->mnt, &m, &c) || !server_times(r->fd, &sm, &sc))
		return false;
	if (!ts_equal(&m, &sm) || !ts_equal(&c, &sc))
		return fail("after fsync: the server has mtime %lld.%09ld ctime %lld.%09ld, stat says %lld.%09ld %lld.%09ld (%lld FUSE_SETATTR with times)",
			    (long long)sm.tv_sec, sm.tv_nsec, (long long)sc.tv_sec, sc.tv_nsec,
			    (long long)m.tv_sec, m.tv_nsec, (long long)c.tv_sec, c.tv_nsec,
			    server_state(r->fd, "time_setattrs"));
	return true;
}

bool wt_end(struct wt_run *r, char *out, size_t len)
{
	struct timespec m, c;

	if (r->dfd >= 0)
		close(r->dfd);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = r->dfd = -1;
	if (!r->mnt || !stat_times(r->mnt, &m, &c))
		return false;
	snprintf(out, len, "%lld.%09ld %lld.%09ld", (long long)m.tv_sec, m.tv_nsec,
		 (long long)c.tv_sec, c.tv_nsec);
	return true;
}

static bool parse_ts(const char *s, struct timespec *t)
{
	long long sec;
	long nsec;

	if (sscanf(s, "%lld.%ld", &sec, &nsec) != 2) {
		fail("not a time: '%s'", s);
		return false;
	}
	*t = (struct timespec){ (time_t)sec, nsec };
	return true;
}

bool check_times_remount(const char *mnt, const char *ms, const char *cs)
{
	struct timespec want_m, want_c, m, c, sm, sc;
	int fd;
	bool ok;

	if (!parse_ts(ms, &want_m) || !parse_ts(cs, &want_c))
		return false;
	if (!stat_times(mnt, &m, &c))
		return false;
	fd = open_w(mnt, O_RDONLY);
	if (fd < 0)
		return fail("open w: %s", strerror(errno));
	ok = server_times(fd, &sm, &sc);
	close(fd);
	if (ok && (!ts_equal(&m, &want_m) || !ts_equal(&c, &want_c)))
		ok = fail("after remount stat says mtime %lld.%09ld ctime %lld.%09ld, before umount %s %s",
			  (long long)m.tv_sec, m.tv_nsec, (long long)c.tv_sec, c.tv_nsec, ms, cs);
	if (ok && (!ts_equal(&sm, &want_m) || !ts_equal(&sc, &want_c)))
		ok = fail("after remount the server has mtime %lld.%09ld ctime %lld.%09ld, stat showed %s %s before umount",
			  (long long)sm.tv_sec, sm.tv_nsec, (long long)sc.tv_sec, sc.tv_nsec, ms, cs);
	return ok;
}
