/* helper/media/place.c: where ext4cell-media mounts a disk for a user:
 * MEDIA_ROOT/USER/NAME. MEDIA_ROOT/USER is root's, mode 0750, with a POSIX ACL
 * entry that lets USER (and only USER) in, so other users do not even see the
 * names of USER's disks. NAME is the filesystem's label, else its UUID, else
 * the kernel's name of the device, with every byte outside [A-Za-z0-9._+-]
 * made '_' (a label is the image author's text), never starting with '.';
 * when the name is taken, "-2", "-3" ... are appended. */
#include "media.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define NAME_MAX_LEN	64
#define NAME_TRIES	100

/* The system.posix_acl_access value (little-endian): a version word, then
 * entries ordered by tag. */
struct acl_entry {
	uint16_t tag, perm;
	uint32_t id;
};

enum { ACL_USER_OBJ = 1, ACL_USER = 2, ACL_GROUP_OBJ = 4, ACL_MASK = 0x10, ACL_OTHER = 0x20 };

static struct acl_entry entry(uint16_t tag, uint16_t perm, uint32_t id)
{
	return (struct acl_entry){ htole16(tag), htole16(perm), htole32(id) };
}

/* root rwx, uid r-x, root's group r-x, nobody else */
static void let_in(int dirfd, const char *path, uid_t uid)
{
	struct {
		uint32_t version;
		struct acl_entry e[5];
	} __attribute__((packed)) acl = {
		htole32(2),
		{ entry(ACL_USER_OBJ, 7, UINT32_MAX), entry(ACL_USER, 5, uid),
		  entry(ACL_GROUP_OBJ, 5, UINT32_MAX), entry(ACL_MASK, 5, UINT32_MAX),
		  entry(ACL_OTHER, 0, UINT32_MAX) },
	};

	if (fsetxattr(dirfd, "system.posix_acl_access", &acl, sizeof(acl), 0))
		helper_fail(EXIT_SYSTEM, "%s: cannot let uid %u in (ACL): %s", path, (unsigned)uid,
			    strerror(errno));
}

/* A directory of root's at at/name (made 0755 if missing), opened. */
static int root_dir(int at, const char *name, const char *path, mode_t mode)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, mode) && errno != EEXIST)
		helper_fail(EXIT_SYSTEM, "cannot make %s: %s", path, strerror(errno));
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		helper_fail(EXIT_SYSTEM, "%s: %s", path, strerror(errno));
	if (st.st_uid != 0 || (st.st_mode & 022))
		helper_fail(EXIT_SYSTEM, "%s is not root's or is writable by others: "
			    "nothing mounted", path);
	if (fchmod(fd, mode))
		helper_fail(EXIT_SYSTEM, "%s: %s", path, strerror(errno));
	return fd;
}

/* name from text made safe for a path component; false when nothing is left */
static int safe_name(const char *text, char *name)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p &&
	     n < NAME_MAX_LEN; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9') || strchr("._+-", *p);

		if (n == 0 && *p == '.')
			ok = 0;
		name[n++] = ok ? (char)*p : '_';
	}
	name[n] = 0;
	return n > 0 && strspn(name, "_") < n;
}

void media_place(const char *user, uid_t uid, gid_t gid, const char *label, const char *uuid,
		 const char *kname, char *mnt, size_t size)
{
	char base[NAME_MAX_LEN + 1], name[NAME_MAX_LEN + 16], userdir[PATH_MAX];
	int top, dir;

	if (!safe_name(label, base) && !safe_name(uuid, base) && !safe_name(kname, base))
		snprintf(base, sizeof(base), "disk");
	top = root_dir(AT_FDCWD, MEDIA_ROOT, MEDIA_ROOT, 0755);
	snprintf(userdir, sizeof(userdir), "%s/%s", MEDIA_ROOT, user);
	if (!*user || strchr(user, '/') || !strcmp(user, ".") || !strcmp(user, ".."))
		helper_fail(EXIT_SYSTEM, "user name '%s' cannot name a directory", user);
	dir = root_dir(top, user, userdir, 0750);
	let_in(dir, userdir, uid);
	for (int i = 1; i <= NAME_TRIES; i++) {
		if (i == 1)
			snprintf(name, sizeof(name), "%s", base);
		else
			snprintf(name, sizeof(name), "%s-%d", base, i);
		if (mkdirat(dir, name, 0700)) {
			if (errno == EEXIST)
				continue;
			helper_fail(EXIT_SYSTEM, "cannot make %s/%s: %s", userdir, name,
				    strerror(errno));
		}
		if (fchownat(dir, name, uid, gid, AT_SYMLINK_NOFOLLOW))
			helper_fail(EXIT_SYSTEM, "%s/%s: %s", userdir, name, strerror(errno));
		close(dir);
		close(top);
		if ((size_t)snprintf(mnt, size, "%s/%s", userdir, name) >= size)
			helper_fail(EXIT_SYSTEM, "%s/%s: path too long", userdir, name);
		return;
	}
	helper_fail(EXIT_SYSTEM, "%s: %d directories named after '%s' are taken", userdir,
		    NAME_TRIES, base);
}
