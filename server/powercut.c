/* server/powercut.c: the simulated power cut of powercut.h (test builds).
 * Every write since the last flush keeps an undo record (the bytes it
 * replaced); at the cut a seeded coin decides, newest first, which of them
 * the "volatile cache" loses. */
#include "powercut.h"

#ifdef EXT4CELL_TEST_TRIGGERS
#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct undo {
	off_t off;
	size_t len;
	void *old;
};

static struct {
	bool read, armed;
	unsigned long long writes, cut_at;
	unsigned seed;
	struct undo *u;
	size_t n, cap;
} pc;

static void setup(void)
{
	const char *v = getenv("EXT4CELL_TEST_POWERCUT");
	char *end;

	pc.read = true;
	if (!v || !*v)
		return;
	pc.armed = true;
	pc.cut_at = strtoull(v, &end, 10);
	pc.seed = *end == ':' ? (unsigned)strtoul(end + 1, NULL, 10) : 1;
}

static void forget(void)
{
	for (size_t i = 0; i < pc.n; i++)
		free(pc.u[i].old);
	pc.n = 0;
}

/* Remembers what [off, off + len) holds now; false when it cannot. */
static bool remember(int fd, size_t len, off_t off)
{
	struct undo *u;
	ssize_t got;

	if (pc.n == pc.cap) {
		size_t cap = pc.cap ? 2 * pc.cap : 256;
		struct undo *nu = realloc(pc.u, cap * sizeof(*nu));

		if (!nu)
			return false;
		pc.u = nu;
		pc.cap = cap;
	}
	u = &pc.u[pc.n];
	if (posix_memalign(&u->old, 4096, len ? len : 1))
		return false;
	got = pread(fd, u->old, len, off);
	u->len = got > 0 ? (size_t)got : 0;
	u->off = off;
	pc.n++;
	return true;
}

bool ec_powercut_write(int fd, const void *buf, size_t len, off_t off)
{
	(void)buf;
	if (!pc.read)
		setup();
	if (!pc.armed)
		return false;
	if (!pc.cut_at || ++pc.writes != pc.cut_at) {
		pc.writes += !pc.cut_at;
		if (pc.cut_at)
			(void)remember(fd, len, off);
		return false;
	}
	for (size_t i = pc.n; i-- > 0;)
		if (rand_r(&pc.seed) & 1)
			(void)!pwrite(fd, pc.u[i].old, pc.u[i].len, pc.u[i].off);
	ec_log(EC_LOG_NOTICE, "ext4cell-server: power cut at device write %llu (%zu unflushed)\n",
	       pc.writes, pc.n);
	_exit(99);
}

bool ec_powercut_sync(int fd)
{
	(void)fd;
	forget();
	return false;
}

void ec_powercut_report(void)
{
	if (pc.armed && !pc.cut_at)
		ec_log(EC_LOG_NOTICE, "ext4cell-server: power cut: %llu device writes\n", pc.writes);
}
#endif
