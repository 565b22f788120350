/* helper/config.c: /etc/ext4cell.conf, the administrator's settings for mounts
 * by users (read only for them; root is not limited). One setting a line, '#'
 * starts a comment:
 *   user_allow_other        users may ask for allow_other
 *   user_mount_max = N      ext4cell mounts a user may have at once (default 16)
 *   user_iomap = yes|no     users' mounts may use FUSE iomap (default no: the
 *                           kernel series' safety fixes have not all landed)
 *   media_automount = yes|no  removable disks are mounted for the seat's user
 *                           when plugged in (ext4cell-media, default yes)
 * The file must be root's and writable by no one else; a missing file means the
 * defaults. */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MOUNT_MAX	16

/* The line without comment and surrounding blanks (in place). */
static char *trim(char *line)
{
	char *end;

	line[strcspn(line, "#\n")] = 0;
	line += strspn(line, " \t");
	end = line + strlen(line);
	while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = 0;
	return line;
}

static void setting(struct helper_config *c, char *line, int lineno)
{
	char *eq = strchr(line, '='), *value = NULL, *end;
	unsigned long n;

	if (eq) {
		*eq = 0;
		value = trim(eq + 1);
		line = trim(line);
	}
	if (!strcmp(line, "user_allow_other") && !value) {
		c->user_allow_other = true;
		return;
	}
	if (!strcmp(line, "user_iomap") && value && (!strcmp(value, "yes") || !strcmp(value, "no"))) {
		c->user_iomap = !strcmp(value, "yes");
		return;
	}
	if (!strcmp(line, "media_automount") && value && (!strcmp(value, "yes") || !strcmp(value, "no"))) {
		c->media_automount = !strcmp(value, "yes");
		return;
	}
	if (!strcmp(line, "user_mount_max") && value) {
		errno = 0;
		n = strtoul(value, &end, 10);
		if (!errno && *value && !*end && n <= 100000) {
			c->user_mount_max = (unsigned)n;
			return;
		}
	}
	helper_fail(EXIT_SYSTEM, "%s line %d: bad setting '%s%s%s' (settings: user_allow_other, "
		    "user_mount_max = N, user_iomap = yes|no, media_automount = yes|no)", HELPER_CONFIG, lineno, line,
		    value ? " = " : "", value ? value : "");
}

void helper_read_config(struct helper_config *c)
{
	char *line = NULL;
	size_t cap = 0;
	struct stat st;
	int fd, lineno = 0;
	FILE *f;

	c->user_allow_other = false;
	c->user_mount_max = DEFAULT_MOUNT_MAX;
	c->user_iomap = false;
	c->media_automount = true;
	helper_privs_raise();
	fd = open(HELPER_CONFIG, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	helper_privs_drop();
	if (fd < 0 && errno == ENOENT)
		return;
	if (fd < 0 || fstat(fd, &st))
		helper_fail(EXIT_SYSTEM, "cannot read %s: %s", HELPER_CONFIG, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
		helper_fail(EXIT_SYSTEM, "%s must be a regular file owned by root and writable "
			    "only by root: not used, nothing mounted", HELPER_CONFIG);
	f = fdopen(fd, "r");
	if (!f)
		helper_fail(EXIT_SYSTEM, "%s: %s", HELPER_CONFIG, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		char *s = trim(line);

		lineno++;
		if (*s)
			setting(c, s, lineno);
	}
	free(line);
	fclose(f);
}
