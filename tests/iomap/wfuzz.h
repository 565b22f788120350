/* wfuzz.h: iomap-test-server --fuzz SEED: a hostile server's replies. After
 * FUSE_INIT, a third of the replies are mutated (fields set to boundary
 * values, bits flipped, payload cut short or padded, random payload, random
 * errors), some preceded by writes the kernel must reject (an impossible
 * error or length, a reply to a request that does not exist), and random
 * notifications are pushed by a thread of their own. Every request still
 * ends with one reply the kernel accepts or refuses, so no request waits
 * forever. */
#ifndef IOMAP_WFUZZ_H
#define IOMAP_WFUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Start mutating the replies on FUSE_FD; counts go to LOG (or nowhere).
 * 0, or -1 with errno when the notifier thread cannot start. */
int fz_start(uint64_t seed, int fuse_fd, uint64_t dev_size, const char *log);
/* Whether fz_start ran. */
int fz_active(void);
/* Send the reply (ERROR is a positive errno or 0) to request UNIQUE, maybe
 * mutated; 0, or -1 with errno from the last write. */
int fz_reply(uint64_t unique, int error, const void *data, size_t len);
/* Write the counts to the log now (at FUSE_DESTROY or ENODEV). */
void fz_flush_log(void);

#endif
