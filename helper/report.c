/* helper/report.c: the helper's messages: fatal ones (with mount(8)'s exit
 * codes) and the -v narration. */
#include "helper.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool helper_verbose;

static void vsay(const char *fmt, va_list ap)
{
	fputs("mount.fuse.ext4: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void helper_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	exit(code);
}

void helper_say(const char *fmt, ...)
{
	va_list ap;

	if (!helper_verbose)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}
