/* server/printable.h: outside names made safe for logs and option strings. */
#ifndef EC_PRINTABLE_H
#define EC_PRINTABLE_H

/* A copy of s with control characters as \xNN and '\' as "\\" (malloc'd;
 * NULL when out of memory). */
char *ec_printable(const char *s);
/* A copy of s with ',' and '\' escaped by '\', as libfuse's option parser
 * reads them (malloc'd; NULL when out of memory). */
char *ec_opt_escape(const char *s);

#endif
