/* fuzz/quietlog.c: the server's log (server/log.h) for the fuzz targets:
 * silent, since a hostile image makes the server complain on every input
 * and writing that to stderr would slow the fuzzer down; EC_FUZZ_LOG=1 in
 * the environment shows the messages when a finding is replayed. */
#include "../server/log.h"

#include <stdio.h>
#include <stdlib.h>

static int verbose = -1;

void ec_log_init(void)
{
	verbose = getenv("EC_FUZZ_LOG") != NULL;
}

void ec_vlog(int prio, const char *fmt, va_list ap)
{
	(void)prio;
	if (verbose < 0)
		ec_log_init();
	if (verbose)
		vfprintf(stderr, fmt, ap);
}

void ec_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ec_vlog(prio, fmt, ap);
	va_end(ap);
}
