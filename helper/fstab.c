/* helper/fstab.c: the /etc/fstab rule for users: a user may mount an entry of
 * our type marked `user` or `users`, as mount(8) allows, with the entry's source,
 * mount point and options. The caller's SOURCE and MOUNTPOINT only select the
 * entry (same name, or the same file as the caller sees it); what is opened
 * afterwards, as root, is the administrator's path, with no symbolic link
 * followed (a user could swap one in a directory they own). Options on the
 * command line must be in the entry, or only restrict it (or be rw when the
 * entry is not ro: mount(8) passes what the entry means). */
#include "helper.h"

#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define FSTAB	"/etc/fstab"

/* What a user may add to an entry's options: each only takes something away. */
static const char *const restricting[] = { "ro", "noexec", "nosuid", "nodev", NULL };

static bool same_file(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode))
		return S_ISBLK(b->st_mode) && a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* LABEL=, UUID=, PARTLABEL=, PARTUUID= name a link in root's /dev/disk/by-*. */
static bool tag_path(const char *spec, char *path, size_t len)
{
	static const char *const tags[][2] = {
		{ "LABEL=", "by-label" }, { "UUID=", "by-uuid" },
		{ "PARTLABEL=", "by-partlabel" }, { "PARTUUID=", "by-partuuid" },
	};

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t n = strlen(tags[i][0]);

		if (!strncmp(spec, tags[i][0], n) && spec[n] && !strchr(spec + n, '/')) {
			snprintf(path, len, "/dev/disk/%s/%s", tags[i][1], spec + n);
			return true;
		}
	}
	snprintf(path, len, "%s", spec);
	return false;
}

/* Does the caller's NAME (seen as *mine, if have_mine) name the entry's path? */
static bool selects(const char *name, const struct stat *mine, bool have_mine, const char *path)
{
	struct stat theirs;

	if (!strcmp(name, path))
		return true;
	return have_mine && !stat(path, &theirs) && same_file(mine, &theirs);
}

bool helper_fstab_find(const char *type, const char *source, const char *mnt,
		       struct helper_fstab *e)
{
	struct stat src_st, mnt_st;
	bool have_src = !stat(source, &src_st), have_mnt = !stat(mnt, &mnt_st);
	struct mntent *ent;
	FILE *f;

	helper_privs_raise();
	f = setmntent(FSTAB, "re");
	while (f && (ent = getmntent(f))) {
		if (strcmp(ent->mnt_type, type) ||
		    (!hasmntopt(ent, "user") && !hasmntopt(ent, "users")))
			continue;
		e->tag = tag_path(ent->mnt_fsname, e->source, sizeof(e->source));
		snprintf(e->dir, sizeof(e->dir), "%s", ent->mnt_dir);
		if (strlen(ent->mnt_opts) > PROTO_MAX_STR ||
		    !selects(mnt, &mnt_st, have_mnt, e->dir) ||
		    (!selects(source, &src_st, have_src, e->source) &&
		     strcmp(source, ent->mnt_fsname)))
			continue;
		strcpy(e->opts, ent->mnt_opts);
		endmntent(f);
		helper_privs_drop();
		helper_say("%s on %s: /etc/fstab allows users to mount it (%s)", e->source,
			   e->dir, e->opts);
		return true;
	}
	if (f)
		endmntent(f);
	helper_privs_drop();
	return false;
}

/* Is opt one of the entry's comma-separated options? */
static bool in_entry(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, opt, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

void helper_fstab_check_options(const struct helper_fstab *e, const char *list)
{
	char copy[PROTO_MAX_STR + 1], *save = NULL, *tok;

	if (snprintf(copy, sizeof(copy), "%s", list) >= (int)sizeof(copy))
		helper_fail(EXIT_USAGE, "option list too long");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool restricts = false;

		for (const char *const *r = restricting; *r; r++)
			restricts |= !strcmp(tok, *r);
		/* mount(8) passes rw for an entry that is not ro; it may turn the
		 * entry's `user` into user=NAME */
		if (restricts || in_entry(e->opts, tok) || !strncmp(tok, "user=", 5) ||
		    (!strcmp(tok, "rw") && !in_entry(e->opts, "ro")))
			continue;
		helper_fail(EXIT_USAGE, "option '%s' is not in the /etc/fstab entry for %s: "
			    "users may only add ro, noexec, nosuid, nodev", tok, e->source);
	}
}
