/* server/printable.c: names that come from outside (the device or image name
 * the helper sends, any byte but NUL) made safe where the server writes them:
 * log lines, where a newline would forge a line of its own, and libfuse's
 * option string, where a comma would start an option of its own. */
#include "printable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ec_printable(const char *s)
{
	char *out = malloc(4 * strlen(s) + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f || ch == '\\')
			p += sprintf(p, ch == '\\' ? "\\\\" : "\\x%02x", ch);
		else
			*p++ = (char)ch;
	}
	*p = 0;
	return out;
}

char *ec_opt_escape(const char *s)
{
	char *out = malloc(2 * strlen(s) + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (*s == ',' || *s == '\\')
			*p++ = '\\';
		*p++ = *s;
	}
	*p = 0;
	return out;
}
