/* server/options.c: parses the comma-separated -o option list. */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Mount flags the kernel or the helper applies; accepted and ignored here. */
static const char *const ignored[] = {
	"defaults", "nodev", "dev", "nosuid", "suid", "noexec", "exec", "noatime",
	"atime", "nodiratime", "relatime", "strictatime", "async", "acl", "user_xattr",
	"default_permissions", NULL,
};

static int parse_id(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v >= UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* The index of value in vals[first..n), or -1. */
static int choice(const char *value, const char *const *vals, int first, int n)
{
	for (int i = first; i < n; i++)
		if (!strcmp(value, vals[i]))
			return i;
	return -1;
}

_Static_assert(sizeof(enum ec_errors) == sizeof(unsigned) &&
	       sizeof(enum ec_iomap) == sizeof(unsigned) &&
	       sizeof(enum ec_journal) == sizeof(unsigned), "named options are stored as unsigned");

static int parse_one(struct ec_options *o, const char *opt, char *err, size_t errlen)
{
	static const struct { const char *name; size_t off; bool val; } flags[] = {
		{ "ro", offsetof(struct ec_options, ro), true },
		{ "rw", offsetof(struct ec_options, ro), false },
		{ "kernel", offsetof(struct ec_options, kernel), true },
		{ "allow_other", offsetof(struct ec_options, allow_other), true },
		{ "fakeroot", offsetof(struct ec_options, fakeroot), true },
		{ "norecovery", offsetof(struct ec_options, norecovery), true },
		{ "noload", offsetof(struct ec_options, norecovery), true },
		{ "debug", offsetof(struct ec_options, debug), true },
		{ "flush", offsetof(struct ec_options, flush), true },
	};
	static const char *const errvals[] = { NULL, "continue", "remount-ro", "panic" };
	static const char *const autovals[] = { "auto", "on", "off" };
	/* options with a named value: vals[first..n) stored as an enum at off */
	static const struct {
		const char *key, *const *vals, *use;
		int first, n;
		size_t off;
	} named[] = {
		{ "errors=", errvals, "continue, remount-ro or panic", 1, 4,
		  offsetof(struct ec_options, errors) },
		{ "iomap=", autovals, "auto, on or off", 0, 3, offsetof(struct ec_options, iomap) },
		{ "journal=", autovals, "auto, on or off", 0, 3,
		  offsetof(struct ec_options, journal) },
	};
	char *end;
	size_t i;
	int v;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (!strcmp(opt, flags[i].name)) {
			*(bool *)((char *)o + flags[i].off) = flags[i].val;
			return 0;
		}
	}
	for (i = 0; ignored[i]; i++)
		if (!strcmp(opt, ignored[i]))
			return 0;
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		size_t klen = strlen(named[i].key);

		if (strncmp(opt, named[i].key, klen))
			continue;
		v = choice(opt + klen, named[i].vals, named[i].first, named[i].n);
		if (v < 0) {
			snprintf(err, errlen, "bad value in '%s': use %s%s", opt, named[i].key,
				 named[i].use);
			return -1;
		}
		*(unsigned *)((char *)o + named[i].off) = (unsigned)v;
		return 0;
	}
	if (!strncmp(opt, "commit=", 7)) {
		unsigned long n = strtoul(opt + 7, &end, 10);

		if (!opt[7] || *end || opt[7] == '-' || n > EC_COMMIT_MAX) {
			snprintf(err, errlen, "bad value in '%s': use commit=N, N from 0 (default, "
				 "%d) to %d seconds", opt, EC_COMMIT_DEFAULT, EC_COMMIT_MAX);
			return -1;
		}
		o->commit = (unsigned)n;
		return 0;
	}
	if (!strncmp(opt, "uid=", 4) || !strncmp(opt, "gid=", 4)) {
		bool isuid = opt[0] == 'u';
		if (parse_id(opt + 4, isuid ? &o->uid : &o->gid)) {
			snprintf(err, errlen, "bad value in '%s': expected a decimal id below 4294967295", opt);
			return -1;
		}
		*(isuid ? &o->has_uid : &o->has_gid) = true;
		return 0;
	}
	snprintf(err, errlen, "unknown mount option '%s' (see --help)", opt);
	return -1;
}

int ec_options_parse(struct ec_options *o, const char *list, char *err, size_t errlen)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int rc = 0;

	if (!copy) {
		snprintf(err, errlen, "out of memory parsing options");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
		rc = parse_one(o, tok, err, errlen);
	free(copy);
	return rc;
}
