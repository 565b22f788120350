/* wdefer.c: the held-back FUSE_IOMAP_BEGIN reply of iomap-test-server
 * (see wdefer.h). */
#include <stdio.h>
#include <time.h>

#include "wdefer.h"

static struct {
	enum { WD_IDLE, WD_ARMED, WD_HELD } state;
	uint64_t unique;
	struct fuse_iomap_begin_out out;
	bool fallocated, rewritten;	/* the events seen while held */
	struct timespec deadline;
	unsigned int held, released, timeouts, punched;
} d;

static const char *const names[] = { "idle", "armed", "held" };

void wd_describe(char *buf, size_t len)
{
	snprintf(buf, len, "defer=%s held=%u punched=%u released=%u timeouts=%u",
		 names[d.state], d.held, d.punched, d.released, d.timeouts);
}

void wd_arm(char *buf, size_t len)
{
	if (d.state == WD_IDLE)
		d.state = WD_ARMED;
	wd_describe(buf, len);
}

bool wd_wants(void)
{
	return d.state == WD_ARMED;
}

void wd_hold(uint64_t unique, const struct fuse_iomap_begin_out *out)
{
	d.state = WD_HELD;
	d.unique = unique;
	d.out = *out;
	d.fallocated = d.rewritten = false;
	clock_gettime(CLOCK_MONOTONIC, &d.deadline);
	d.deadline.tv_sec += WD_TIMEOUT_MS / 1000;
	d.held++;
}

void wd_event(enum wd_event ev)
{
	if (d.state != WD_HELD)
		return;
	if (ev == WD_FALLOCATE) {
		d.fallocated = true;
		d.punched++;
	}
	else if (d.fallocated)
		d.rewritten = true;
}

int wd_timeout_ms(void)
{
	struct timespec now;
	long long ms;

	if (d.state != WD_HELD)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (d.deadline.tv_sec - now.tv_sec) * 1000LL +
	     (d.deadline.tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

bool wd_due(uint64_t *unique, struct fuse_iomap_begin_out *out)
{
	if (d.state != WD_HELD)
		return false;
	if (d.rewritten)
		d.released++;
	else if (!wd_timeout_ms())
		d.timeouts++;
	else
		return false;
	d.state = WD_IDLE;
	*unique = d.unique;
	*out = d.out;
	return true;
}
