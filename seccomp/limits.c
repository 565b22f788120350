/*
 * seccomp/limits.c: resource limits of the sandboxed server, soft = hard, so an
 * exploited server cannot raise them again (that needs CAP_SYS_RESOURCE).
 *   RLIMIT_CORE 0       no core dump can copy image data or memory anywhere
 *   RLIMIT_NOFILE 16    FUSE fd, device fd, helper socket (it opens none itself)
 *   RLIMIT_NPROC 0      no new task (the server is single-threaded); seccomp
 *                       forbids clone anyway; the kernel ignores it for uid 0
 *   RLIMIT_MEMLOCK 0, RLIMIT_MSGQUEUE 0   nothing to lock, no message queues
 *   RLIMIT_AS           address space at entry + 4 GiB: bounded, and compatible
 *                       with AddressSanitizer, whose shadow is reserved at startup
 * A limit already lower than these is left as it is.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"

/* Size of the address space now, in bytes (first field of /proc/self/statm). */
static int address_space_size(rlim_t *size, char *err, size_t errlen)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long long pages;
	int ok;

	if (!f)
		return sandbox_error(err, errlen, errno, "/proc/self/statm");
	ok = fscanf(f, "%llu", &pages) == 1;
	fclose(f);
	if (!ok)
		return sandbox_error(err, errlen, EIO, "/proc/self/statm: unexpected contents");
	*size = pages * (rlim_t)sysconf(_SC_PAGESIZE);
	return 0;
}

static int lower_limit(int resource, const char *name, rlim_t value, char *err, size_t errlen)
{
	struct rlimit lim;

	if (getrlimit(resource, &lim) < 0)
		return sandbox_error(err, errlen, errno, "getrlimit(%s)", name);
	if (lim.rlim_max < value)
		value = lim.rlim_max;
	lim.rlim_cur = lim.rlim_max = value;
	if (setrlimit(resource, &lim) < 0)
		return sandbox_error(err, errlen, errno, "setrlimit(%s, %llu)", name,
				     (unsigned long long)value);
	return 0;
}

int sandbox_set_limits(char *err, size_t errlen)
{
	struct {
		int resource;
		const char *name;
		rlim_t value;
	} limits[] = {
		{ RLIMIT_CORE, "RLIMIT_CORE", 0 },
		{ RLIMIT_NOFILE, "RLIMIT_NOFILE", SANDBOX_MAX_FDS },
		{ RLIMIT_NPROC, "RLIMIT_NPROC", SANDBOX_MAX_TASKS },
		{ RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", 0 },
		{ RLIMIT_MSGQUEUE, "RLIMIT_MSGQUEUE", 0 },
		{ RLIMIT_AS, "RLIMIT_AS", 0 },
	};
	size_t n = sizeof(limits) / sizeof(limits[0]);
	int rc = address_space_size(&limits[n - 1].value, err, errlen);

	limits[n - 1].value += SANDBOX_AS_BUDGET;
	for (size_t i = 0; !rc && i < n; i++)
		rc = lower_limit(limits[i].resource, limits[i].name, limits[i].value, err, errlen);
	return rc;
}
