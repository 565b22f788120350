/* helper/options.c: splits the -o list into mount(2) flags, options for the
 * server, and mount(8)/fstab bookkeeping that is dropped. */
#include "helper.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

struct flag {
	const char *name;
	unsigned long set, clear;
};

/* Mount flags for the kernel; nosuid and nodev are always set (helper_mount). */
static const struct flag flags[] = {
	{ "ro", MS_RDONLY, 0 }, { "rw", 0, MS_RDONLY },
	{ "nosuid", 0, 0 }, { "nodev", 0, 0 },
	{ "noexec", MS_NOEXEC, 0 }, { "exec", 0, MS_NOEXEC },
	{ "noatime", MS_NOATIME, MS_RELATIME | MS_STRICTATIME },
	{ "relatime", MS_RELATIME, MS_NOATIME | MS_STRICTATIME },
	{ "strictatime", MS_STRICTATIME, MS_NOATIME | MS_RELATIME },
	{ "atime", 0, MS_NOATIME }, { "nodiratime", MS_NODIRATIME, 0 },
	{ "diratime", 0, MS_NODIRATIME }, { "sync", MS_SYNCHRONOUS, 0 },
	{ "async", 0, MS_SYNCHRONOUS }, { "dirsync", MS_DIRSYNC, 0 },
	{ "lazytime", MS_LAZYTIME, 0 },
	/* as in mount(8), an fstab entry users may mount is noexec unless a later
	 * option says exec (nosuid,nodev always) */
	{ "user", MS_NOEXEC, 0 }, { "users", MS_NOEXEC, 0 }, { NULL, 0, 0 },
};

/* mount(8) and fstab words that mean nothing to the filesystem. */
static const char *const dropped[] = {
	"defaults", "auto", "noauto", "nouser", "nousers", "owner", "noowner", "group", "nogroup",
	"nofail", "_netdev", NULL,
};
/* user=NAME: what mount(8) makes of `user` for a user; the helper goes by the
 * real uid instead */
static const char *const dropped_prefix[] = { "x-", "comment=", "user=", NULL };

/* Options of ext4cell-server (server/options.c), passed on. */
static const char *const server[] = {
	"kernel", "allow_other", "fakeroot", "norecovery", "noload", "debug", "acl",
	"user_xattr", "default_permissions", "flush", NULL,
};
static const char *const server_prefix[] = {
	"errors=", "uid=", "gid=", "iomap=", "journal=", "commit=", NULL,
};

static bool in(const char *const *list, const char *opt)
{
	for (; *list; list++)
		if (!strcmp(*list, opt))
			return true;
	return false;
}

static bool prefixed(const char *const *list, const char *opt)
{
	for (; *list; list++)
		if (!strncmp(*list, opt, strlen(*list)))
			return true;
	return false;
}

static void add_server(struct helper_opts *o, const char *opt)
{
	size_t have = strlen(o->server);

	if (have + 1 + strlen(opt) > PROTO_MAX_STR)
		helper_fail(EXIT_USAGE, "option list too long");
	if (have)
		o->server[have++] = ',';
	strcpy(o->server + have, opt);
}

/* A decimal id below 2^32 - 1, as the server accepts it. */
static unsigned long parse_id(const char *opt)
{
	const char *s = opt + 4;
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || errno || *end || v >= UINT32_MAX)
		helper_fail(EXIT_USAGE, "bad value in '%s': expected a decimal id below 4294967295",
			    opt);
	return (unsigned long)v;
}

/* Remembers what a server option means for the mount, so that the helper alone
 * decides allow_other and default_permissions (the server's verdict never
 * widens them): kernel implies allow_other, fakeroot drops default_permissions. */
static void note_server_option(struct helper_opts *o, const char *opt)
{
	if (!strcmp(opt, "allow_other") || !strcmp(opt, "kernel")) {
		o->allow_other = true;
	} else if (!strcmp(opt, "fakeroot")) {
		o->fakeroot = true;
	} else if (!strcmp(opt, "debug")) {
		o->debug = true;
	} else if (!strncmp(opt, "uid=", 4)) {
		o->uid = (uid_t)parse_id(opt);
		o->has_uid = true;
	} else if (!strncmp(opt, "gid=", 4)) {
		o->gid = (gid_t)parse_id(opt);
		o->has_gid = true;
	}
}

static void parse_one(struct helper_opts *o, const char *opt, bool sloppy)
{
	for (const struct flag *f = flags; f->name; f++) {
		if (!strcmp(opt, f->name)) {
			o->msflags = (o->msflags | f->set) & ~f->clear;
			o->ro = o->msflags & MS_RDONLY;
			return;
		}
	}
	if (!strcmp(opt, "suid") || !strcmp(opt, "dev"))
		helper_fail(EXIT_USAGE, "option '%s' is not supported: ext4cell mounts are "
			    "always nosuid,nodev", opt);
	if (in(dropped, opt) || prefixed(dropped_prefix, opt))
		return;
	if (in(server, opt) || prefixed(server_prefix, opt)) {
		note_server_option(o, opt);
		add_server(o, opt);
		return;
	}
	if (!sloppy)
		helper_fail(EXIT_USAGE, "unknown mount option '%s' (see mount.fuse.ext4(8))", opt);
	helper_say("ignoring unknown mount option '%s' (-s)", opt);
}

void helper_parse_options(struct helper_opts *o, const char *list, bool sloppy)
{
	char *copy = strdup(list), *save = NULL, *tok;

	if (!copy)
		helper_fail(EXIT_SYSTEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		parse_one(o, tok, sloppy);
	free(copy);
}
