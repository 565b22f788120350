/* server/log.h: the server's diagnostics on stderr, each with a syslog
 * priority that the journal records when stderr is the journal. */
#ifndef EC_LOG_H
#define EC_LOG_H

#include <stdarg.h>
#include <syslog.h>

enum ec_log_level {
	EC_LOG_ERR = LOG_ERR,		/* refused, failed, corrupt */
	EC_LOG_WARNING = LOG_WARNING,	/* served, but not as asked (read-only, no replay) */
	EC_LOG_NOTICE = LOG_NOTICE,	/* a normal event that changed the image (replay) */
	EC_LOG_INFO = LOG_INFO,
	EC_LOG_DEBUG = LOG_DEBUG,	/* -o debug: every FUSE request (wire.c) */
};

/* Decides once, before the sandbox (it needs fstat), whether stderr is the
 * journal, and sends libfuse's messages through ec_vlog. */
void ec_log_init(void);
/* Writes fmt (lines ending in '\n', as fprintf would) to stderr; when stderr is
 * the journal, every line starts with "<prio>". */
void ec_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ec_vlog(int prio, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
