/* wtimes.h: the modification and change times of the writable file "w" of
 * the iomap tests. The kernel keeps them for iomap files and sends them to
 * the server with FUSE_SETATTR (FATTR_MTIME, FATTR_CTIME) when it writes the
 * inode back. iomap-test-server stores what it is sent, says it in
 * user.iomap.state ("mtime=S mtime_ns=N ctime=S ctime_ns=N time_setattrs=N")
 * and hands it to the next server in the block of the FUSE_DESTROY mark
 * (wdurable.h), as a disk filesystem keeps them across a remount. The
 * record helpers are for the server; iomap-check's checks (wtimes.c) show
 * that each write path moves the times and that they survive a remount. */
#ifndef IOMAP_WTIMES_H
#define IOMAP_WTIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Where the record "w-times MSEC.MNSEC CSEC.CNSEC" follows DESTROY_MARK in
 * its block */
#define WT_RECORD_OFF	128
#define WT_RECORD_LEN	64

static inline void wt_store(uint8_t *blk, const struct timespec *m, const struct timespec *c)
{
	snprintf((char *)blk + WT_RECORD_OFF, WT_RECORD_LEN, "w-times %lld.%09ld %lld.%09ld",
		 (long long)m->tv_sec, m->tv_nsec, (long long)c->tv_sec, c->tv_nsec);
}

/* The times of a record wt_store() wrote; false (and nothing set) if none */
static inline bool wt_load(const uint8_t *blk, struct timespec *m, struct timespec *c)
{
	char rec[WT_RECORD_LEN + 1];
	long long ms, cs;
	long mn, cn;

	memcpy(rec, blk + WT_RECORD_OFF, WT_RECORD_LEN);
	rec[WT_RECORD_LEN] = 0;
	if (sscanf(rec, "w-times %lld.%ld %lld.%ld", &ms, &mn, &cs, &cn) != 4 ||
	    mn < 0 || mn > 999999999 || cn < 0 || cn > 999999999)
		return false;
	*m = (struct timespec){ (time_t)ms, mn };
	*c = (struct timespec){ (time_t)cs, cn };
	return true;
}

/* The times for user.iomap.state, with a leading blank */
static inline void wt_describe(char *buf, size_t len, const struct timespec *m,
			       const struct timespec *c, uint64_t setattrs)
{
	snprintf(buf, len, " mtime=%lld mtime_ns=%ld ctime=%lld ctime_ns=%ld time_setattrs=%llu",
		 (long long)m->tv_sec, m->tv_nsec, (long long)c->tv_sec, c->tv_nsec,
		 (unsigned long long)setattrs);
}

/* iomap-check times MNT: on a fresh server, each way of writing w must move
 * mtime and ctime forward (nanoseconds compared): a buffered write, an
 * O_DIRECT write and ftruncate through open files; then fsync (the server
 * must have the times stat shows); then a store through a shared mapping
 * after the last close: after munmap and drop_caches stat must still show
 * its times, also when the kernel forgets the inode at once (the server's
 * --forget-w): they must have reached the server by then. */
enum wt_how { WT_BUFFERED, WT_DIRECT, WT_TRUNCATE, WT_MMAP, WT_HOWS };

struct wt_run {
	const char *mnt;
	int fd, dfd;
	struct timespec m, c;	/* the times stat showed last */
};

bool wt_begin(struct wt_run *r, const char *mnt);
/* WT_MMAP closes the files: after wt_fsync() */
bool wt_step(struct wt_run *r, enum wt_how how);
/* fsync(): then the server has the times stat shows */
bool wt_fsync(struct wt_run *r);
/* close what is open; the times stat shows as "MSEC.MNSEC CSEC.CNSEC" */
bool wt_end(struct wt_run *r, char *out, size_t len);

/* iomap-check times-remount MNT M C: on the next server, after umount, stat
 * and the server show the times M and C that stat showed before. */
bool check_times_remount(const char *mnt, const char *m, const char *c);

#endif
