/* helper/fstab.c: the /etc/fstab rule for users, read with libmount as mount(8)
 * reads it (escapes such as \040, quoted tags, comments, bad lines skipped): a
 * user may mount an entry of our type that mount(8) lets users mount (`user`,
 * `users`; `owner` or `group` when the device is the user's), with the entry's
 * source, mount point and options. The caller's SOURCE and MOUNTPOINT only
 * select the entry (same name, or the same file as the caller sees it); what is
 * opened afterwards, as root, is the administrator's path, with no symbolic link
 * followed (a user could swap one in a directory they own), or for LABEL=,
 * UUID=, PARTLABEL=, PARTUUID= the link in root's /dev/disk/by-* that udev makes
 * and mount(8) looks for. No cache, no probing: libmount never canonicalizes a
 * path nor reads a device here. Options on the command line must be in the
 * entry, or only restrict it, or say what the entry means (rw for an entry
 * that is not ro, exec for one that is not noexec: mount(8) passes those);
 * mount(8)'s user and user=NAME are its record of who mounted, not options. */
#include "helper.h"

#include <blkid.h>
#include <libmount.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define FSTAB	"/etc/fstab"

/* What a user may add to an entry's options: each only takes something away. */
static const char *const restricting[] = { "ro", "noexec", "nosuid", "nodev", NULL };

/* The tags mount(8) finds through udev's links, and where the links are. */
static const char *const tag_dirs[][2] = {
	{ "UUID", "by-uuid" }, { "LABEL", "by-label" },
	{ "PARTUUID", "by-partuuid" }, { "PARTLABEL", "by-partlabel" },
};

/* What the caller named, and where the entry it selects goes. */
struct wanted {
	const char *type, *source, *mnt;
	struct stat src_st, mnt_st;	/* as the caller sees them */
	bool have_src, have_mnt;
	struct helper_fstab *e;
};

/* snprintf that says whether all of it fitted */
static bool fits(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool fits(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode))
		return S_ISBLK(b->st_mode) && a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Does the caller's NAME (seen as *mine, if have_mine) name the entry's path? */
static bool selects(const char *name, const struct stat *mine, bool have_mine, const char *path)
{
	struct stat theirs;

	if (!strcmp(name, path))
		return true;
	return have_mine && !stat(path, &theirs) && same_file(mine, &theirs);
}

/* The path the entry's source names: an absolute path as written, or for a tag
 * udev's link, the value encoded as udev and mount(8) encode it (blkid: '/',
 * spaces and other bytes outside [A-Za-z0-9#+-.:=@_] and UTF-8 as \xNN). */
static bool source_path(struct libmnt_fs *fs, struct helper_fstab *e)
{
	const char *name, *value, *path = mnt_fs_get_srcpath(fs);
	char enc[NAME_MAX + 1];

	e->tag = !mnt_fs_get_tag(fs, &name, &value);
	if (!e->tag)
		return path && path[0] == '/' && fits(e->source, sizeof(e->source), "%s", path);
	for (size_t i = 0; i < sizeof(tag_dirs) / sizeof(tag_dirs[0]); i++)
		if (!strcmp(name, tag_dirs[i][0]))
			return !blkid_encode_string(value, enc, sizeof(enc)) && enc[0] &&
			       strcmp(enc, ".") && strcmp(enc, "..") &&
			       fits(e->source, sizeof(e->source), "/dev/disk/%s/%s",
				    tag_dirs[i][1], enc);
	return false;
}

/* Who mount(8) lets mount the entry: MNT_MS_USER, USERS, OWNER, GROUP as its
 * options leave them (nouser and the like count; user=NAME is the record of
 * who mounted it, not a permission). */
static unsigned long who_may(const char *opts)
{
	unsigned long fl = 0;
	size_t valsz = 0;

	if (mnt_optstr_get_flags(opts, &fl, mnt_get_builtin_optmap(MNT_USERSPACE_MAP)))
		return 0;
	if ((fl & MNT_MS_USER) && !mnt_optstr_get_option(opts, "user", NULL, &valsz) && valsz)
		fl &= ~MNT_MS_USER;
	return fl & (MNT_MS_USER | MNT_MS_USERS | MNT_MS_OWNER | MNT_MS_GROUP);
}

/* Is the entry read-only, noexec, as mount(8) reads it (user and users imply
 * noexec unless a later exec; owner and group do not)? Both if unreadable. */
static void meaning(const char *opts, struct helper_fstab *e)
{
	unsigned long fl = 0;

	if (mnt_optstr_get_flags(opts, &fl, mnt_get_builtin_optmap(MNT_LINUX_MAP)))
		fl = MS_RDONLY | MS_NOEXEC;
	e->ro = fl & MS_RDONLY;
	e->noexec = fl & MS_NOEXEC;
}

/* mnt_table_find_next_fs() match: an entry of our type users may mount whose
 * paths the caller named; fills w->e. */
static int selects_entry(struct libmnt_fs *fs, void *data)
{
	struct wanted *w = data;
	struct helper_fstab *e = w->e;
	const char *type = mnt_fs_get_fstype(fs), *dir = mnt_fs_get_target(fs);
	const char *spec = mnt_fs_get_source(fs), *opts = mnt_fs_get_options(fs);
	unsigned long who;

	if (!opts)
		opts = "";
	if (!type || strcmp(type, w->type) || !spec || !dir || !(who = who_may(opts)))
		return 0;
	if (dir[0] != '/' || !fits(e->dir, sizeof(e->dir), "%s", dir) ||
	    strlen(opts) > PROTO_MAX_STR || !source_path(fs, e)) {
		helper_say("/etc/fstab: not using the entry for %s: it needs an absolute source "
			   "path or a LABEL=, UUID=, PARTLABEL=, PARTUUID= tag, an absolute mount "
			   "point of fewer than %d bytes and at most %d bytes of options", dir,
			   PATH_MAX, PROTO_MAX_STR);
		return 0;
	}
	if (!selects(w->mnt, &w->mnt_st, w->have_mnt, e->dir) ||
	    (!selects(w->source, &w->src_st, w->have_src, e->source) && strcmp(w->source, spec)))
		return 0;
	strcpy(e->opts, opts);
	meaning(opts, e);
	e->owner = e->group = false;
	if (!(who & (MNT_MS_USER | MNT_MS_USERS))) {
		e->owner = who & MNT_MS_OWNER;
		e->group = who & MNT_MS_GROUP;
	}
	return 1;
}

/* A line libmount cannot read is skipped, as mount(8) skips it. */
static int parse_error(struct libmnt_table *tb, const char *file, int line)
{
	(void)tb;
	helper_say("%s: parse error at line %d: ignored", file, line);
	return 1;
}

bool helper_fstab_find(const char *type, const char *source, const char *mnt,
		       struct helper_fstab *e)
{
	struct wanted w = { .type = type, .source = source, .mnt = mnt, .e = e };
	struct libmnt_table *tb;
	struct libmnt_iter *itr;
	struct libmnt_fs *fs;
	bool found = false;

	/* with the caller's rights: what the caller sees */
	w.have_src = !stat(source, &w.src_st);
	w.have_mnt = !stat(mnt, &w.mnt_st);
	helper_privs_raise();
	tb = mnt_new_table();
	itr = mnt_new_iter(MNT_ITER_FORWARD);
	if (!tb || !itr)
		helper_fail(EXIT_SYSTEM, "out of memory");
	mnt_table_set_parser_errcb(tb, parse_error);
	/* the path given, so that no LIBMOUNT_FSTAB is ever asked */
	if (mnt_table_parse_fstab(tb, FSTAB))
		helper_say("%s: cannot read it: no entry applies", FSTAB);
	else
		found = !mnt_table_find_next_fs(tb, itr, selects_entry, &w, &fs);
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	helper_privs_drop();
	if (found)
		helper_say("%s on %s: /etc/fstab allows %s to mount it (%s)", e->source, e->dir,
			   e->owner || e->group ? "the device's owner or group" : "users", e->opts);
	return found;
}

void helper_fstab_check_device(const struct helper_fstab *e, const char *source,
			       const struct stat *st)
{
	bool owner = e->owner && st->st_uid == helper_uid();
	bool group = e->group && helper_in_group(st->st_gid);

	if (!e->owner && !e->group)
		return;
	if (strncmp(e->source, "/dev/", 5))
		helper_fail(EXIT_USAGE, "%s: not a device under /dev: the /etc/fstab entry's "
			    "owner and group options apply only to devices", source);
	if (owner || group)
		return;
	if (!e->group)
		helper_fail(EXIT_USAGE, "%s: owned by uid %u, not by you (uid %u): the /etc/fstab "
			    "entry lets only the device's owner mount it", source,
			    (unsigned)st->st_uid, (unsigned)helper_uid());
	if (!e->owner)
		helper_fail(EXIT_USAGE, "%s: group %u is not yours (uid %u): the /etc/fstab entry "
			    "lets only the device's group mount it", source,
			    (unsigned)st->st_gid, (unsigned)helper_uid());
	helper_fail(EXIT_USAGE, "%s: owned by uid %u and group %u, neither yours (uid %u): the "
		    "/etc/fstab entry lets only the device's owner or group mount it", source,
		    (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned)helper_uid());
}

/* Is opt (NAME or NAME=VALUE) one of the entry's options, as written? */
static bool in_entry(const char *opts, const char *opt)
{
	char *next = (char *)opts, *name, *value;	/* libmount only reads it */
	size_t namesz, valsz;

	while (!mnt_optstr_next_option(&next, &name, &namesz, &value, &valsz)) {
		size_t n = value ? (size_t)(value - name) + valsz : namesz;

		if (!strncmp(name, opt, n) && !opt[n])
			return true;
	}
	return false;
}

void helper_fstab_add_options(const struct helper_fstab *e, struct helper_opts *o,
			      const char *list, bool sloppy)
{
	char copy[PROTO_MAX_STR + 1], *save = NULL, *tok;

	if (snprintf(copy, sizeof(copy), "%s", list) >= (int)sizeof(copy))
		helper_fail(EXIT_USAGE, "option list too long");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		/* mount(8) passes what the entry means: rw for an entry that is
		 * not ro, exec for one that is not noexec (owner, group) */
		bool allowed = in_entry(e->opts, tok) || (!strcmp(tok, "rw") && !e->ro) ||
			       (!strcmp(tok, "exec") && !e->noexec);

		/* mount(8)'s record of who mounts (user, user=NAME, also for an
		 * owner or group entry): the helper goes by the real uid */
		if (!strcmp(tok, "user") || !strncmp(tok, "user=", 5))
			continue;
		for (const char *const *r = restricting; *r; r++)
			allowed |= !strcmp(tok, *r);
		if (!allowed)
			helper_fail(EXIT_USAGE, "option '%s' is not in the /etc/fstab entry for %s: "
				    "users may only add ro, noexec, nosuid, nodev", tok, e->source);
		helper_parse_options(o, tok, sloppy);
	}
}
