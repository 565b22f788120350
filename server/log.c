/* server/log.c: every diagnostic the server writes goes through here. When
 * stderr is systemd's journal (JOURNAL_STREAM is "DEV:INO" of fd 2, see
 * systemd.exec(5)), each line starts with its syslog priority "<N>"
 * (sd-daemon(3)), which the journal strips and records, so
 * `journalctl -p err` finds refusals and corruption. Anywhere else the lines
 * are written exactly as given. libfuse's messages (fuse_log) come here too. */
#include "log.h"

#include <errno.h>
#include <fuse_log.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(EC_LOG_ERR == (int)FUSE_LOG_ERR && EC_LOG_DEBUG == (int)FUSE_LOG_DEBUG,
	       "libfuse's levels are syslog's");

static bool to_journal;		/* prefix every line with "<N>" */
static bool line_start = true;	/* the next byte written starts a line */

/* One decimal number at *s, digits only, ending at `stop`; *s moves past it. */
static bool parse_number(const char **s, char stop, unsigned long long *v)
{
	char *end;

	if (**s < '0' || **s > '9')
		return false;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno || *end != stop)
		return false;
	*s = end + 1;
	return true;
}

static bool stderr_is_journal(void)
{
	const char *s = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return s && parse_number(&s, ':', &dev) && parse_number(&s, '\0', &ino) &&
	       fstat(STDERR_FILENO, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

static void fuse_log_to_ec(enum fuse_log_level level, const char *fmt, va_list ap)
{
	ec_vlog((int)level, fmt, ap);
}

void ec_log_init(void)
{
	to_journal = stderr_is_journal();
	fuse_set_log_func(fuse_log_to_ec);
}

void ec_vlog(int prio, const char *fmt, va_list ap)
{
	char *text, *line, *next;
	va_list copy;
	int n;

	if (!to_journal) {
		vfprintf(stderr, fmt, ap);
		return;
	}
	va_copy(copy, ap);
	n = vasprintf(&text, fmt, copy);
	va_end(copy);
	if (n < 0) {	/* out of memory: the line still counts, at the journal's default */
		vfprintf(stderr, fmt, ap);
		return;
	}
	for (line = text; *line; line = next) {
		next = strchrnul(line, '\n');
		if (*next)
			next++;
		if (line_start)
			fprintf(stderr, "<%d>", prio & LOG_PRIMASK);
		fwrite(line, 1, (size_t)(next - line), stderr);
		line_start = next[-1] == '\n';
	}
	free(text);
}

void ec_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ec_vlog(prio, fmt, ap);
	va_end(ap);
}
