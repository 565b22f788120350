/* whostile.h: iomap-check's writes to "w" that a hostile server must make
 * fail cleanly. Each prints what it saw, one line per step, and returns 0
 * when the failure was the expected one. */
#ifndef IOMAP_WHOSTILE_H
#define IOMAP_WHOSTILE_H

/* A write (O_DIRECT if flags says so) must fail and leave the size at 0. */
int expect_write_error(const char *mnt, int flags);
/* A buffered write must succeed and the fsync after it fail. */
int expect_wb_error(const char *mnt);
/* w-cow: the first O_DIRECT write of a block works; a partial buffered
 * overwrite (mapped copy-on-write by the server) fails; the block keeps
 * its data. 0 if so. */
int expect_cow_refused(const char *mnt);
/* A store into a shared writable mapping must raise SIGBUS. */
int expect_mkwrite_error(const char *mnt);
/* Dirty pages, then the server is killed: fsync fails, reads and close
 * return, nothing hangs. */
int expect_dirty_die(const char *mnt, int server_pid);

#endif
