/* helper/report.c: the helper's messages: fatal ones (with mount(8)'s exit
 * codes) and the -v narration, one line each. */
#include "helper.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool helper_verbose;
const char *helper_name = "mount.fuse.ext4";

/* One line, whatever the names in it hold: control characters (a newline in
 * a file name would forge a line of its own in a log) are written as \xNN. */
static void vsay(const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	fprintf(stderr, "%s: ", helper_name);
	for (const unsigned char *p = (const unsigned char *)(msg ? msg : fmt); *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	}
	fputc('\n', stderr);
	free(msg);
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
