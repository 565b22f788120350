/* xorshift.h: the seeded 64-bit xorshift generator of the iomap test
 * programs (iomap-race, iomap-chaos, iomap-test-server --fuzz): a seed
 * replays the same sequence. The state must not be 0. */
#ifndef IOMAP_XORSHIFT_H
#define IOMAP_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xs_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A number below n (0 when n is 0). */
static inline uint64_t xs_below(uint64_t *s, uint64_t n)
{
	return n ? xs_next(s) % n : 0;
}

#endif
