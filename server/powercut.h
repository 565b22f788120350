/* server/powercut.h: a simulated power cut for the crash tests, in test
 * builds only (EXT4CELL_TEST_TRIGGERS); release builds compile it away.
 * EXT4CELL_TEST_POWERCUT=N:SEED: the server's N-th device write is never
 * made; of the writes since the last device flush (what a volatile write
 * cache holds), each is undone or kept at random (SEED), and the server
 * exits at once with status 99, as a machine that loses power.
 * EXT4CELL_TEST_POWERCUT=0: no cut; ec_powercut_report() logs the count. */
#ifndef EC_POWERCUT_H
#define EC_POWERCUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef EXT4CELL_TEST_TRIGGERS
/* Before a write of len bytes at off on fd: true when it must not be made
 * (never returns at the cut). */
bool ec_powercut_write(int fd, const void *buf, size_t len, off_t off);
/* Before a device flush: the writes so far are durable. False: flush. */
bool ec_powercut_sync(int fd);
/* Logs the number of device writes made (EXT4CELL_TEST_POWERCUT=0). */
void ec_powercut_report(void);
#else
static inline bool ec_powercut_write(int fd, const void *buf, size_t len, off_t off)
{
	(void)fd, (void)buf, (void)len, (void)off;
	return false;
}

static inline bool ec_powercut_sync(int fd)
{
	(void)fd;
	return false;
}

static inline void ec_powercut_report(void)
{
}
#endif

#endif
