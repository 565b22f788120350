/* helper/helper.h: what the parts of mount.fuse.ext4 share: exit codes (those of
 * mount(8)), failure and verbose reporting, and the pieces of one mount. */
#ifndef EC_HELPER_H
#define EC_HELPER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "../proto/proto.h"

enum {
	EXIT_USAGE = 1,		/* bad invocation, unknown option, not allowed */
	EXIT_SYSTEM = 2,	/* /dev/fuse, loop devices, the server socket */
	EXIT_MOUNT = 32,	/* source unusable, refused by the server, mount failed */
};

extern bool helper_verbose;
extern const char *helper_name;		/* the program messages are from */

/* Prints "PROGRAM: MESSAGE" (helper_name) to stderr and exits with code. */
void helper_fail(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
/* Prints "PROGRAM: MESSAGE" to stderr if -v was given. */
void helper_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The -o list, split (options.c). */
struct helper_opts {
	unsigned long msflags;			/* MS_* for mount(2) */
	bool ro;
	bool allow_other;			/* allow_other or kernel asked */
	bool fakeroot;				/* no default_permissions */
	bool debug;
	bool has_uid, has_gid;			/* uid=/gid= asked (values below) */
	uid_t uid;
	gid_t gid;
	char server[PROTO_MAX_STR + 1];		/* options for the server */
};
/* Adds a comma-separated list; unknown options are fatal unless sloppy (-s). */
void helper_parse_options(struct helper_opts *o, const char *list, bool sloppy);

/* Who called, and with which effective ids the helper works (privs.c): root
 * keeps root; a user (setuid-root installation) works as the user and raises
 * to root only around what needs it. */
void helper_privs_init(void);
void helper_privs_require(void);		/* refuses when not root nor setuid */
bool helper_is_user(void);
uid_t helper_uid(void);				/* the caller's real uid */
void helper_privs_raise(void);			/* no-ops when root called */
void helper_privs_drop(void);
bool helper_denied(int err);			/* a user's EACCES/EPERM */
int helper_open_nosymlinks(const char *path, int flags);	/* openat2, O_CLOEXEC */

/* /etc/ext4cell.conf (config.c): settings for users' mounts. */
#define HELPER_CONFIG	"/etc/ext4cell.conf"
struct helper_config {
	bool user_allow_other;
	unsigned user_mount_max;
	bool user_iomap;		/* users' mounts may use FUSE iomap */
	bool media_automount;		/* ext4cell-media mounts plugged-in disks */
};
void helper_read_config(struct helper_config *c);

/* /etc/fstab entries of our type that users may mount (fstab.c, libmount):
 * user, users, or owner/group of the device. */
struct helper_fstab {
	char source[PATH_MAX];		/* a path; for LABEL= etc. the /dev/disk link */
	bool tag;			/* source is a /dev/disk/by-* link */
	char dir[PATH_MAX];
	char opts[PROTO_MAX_STR + 1];
	bool ro, noexec;		/* what opts mean, as mount(8) reads them */
	bool owner, group;		/* only the device's owner / group (no user, users) */
};
/* Finds the entry that SOURCE and MOUNTPOINT name, as the caller sees them. */
bool helper_fstab_find(const char *type, const char *source, const char *mnt,
		       struct helper_fstab *e);
/* An owner/group entry: refuses unless the opened source (*st) is a device
 * under /dev that the caller owns or whose group the caller is in. */
void helper_fstab_check_device(const struct helper_fstab *e, const char *source,
			       const struct stat *st);
/* Adds a command-line list to o; refuses options that are not in the entry and
 * neither restrict it nor repeat what it means (rw, exec). */
void helper_fstab_add_options(const struct helper_fstab *e, struct helper_opts *o,
			      const char *list, bool sloppy);

/* The checks for users (policy.c); each refuses with exit status 1. */
bool helper_in_group(gid_t gid);		/* the caller's gid or a supplementary one */
void helper_check_mountpoint(const char *mnt, int mntfd);
void helper_check_image_owner(const char *source, const struct stat *st);
/* allow_other/kernel (only with user_allow_other), fakeroot, debug, others' ids */
void helper_check_user_options(const struct helper_opts *o, const struct helper_config *c);
/* A user's open of the source failed with EACCES/EPERM (errno): refuses. */
void helper_refuse_open(const char *source, bool ro)
	__attribute__((noreturn));

/* The source (source.c): opens PATH (SOURCE in messages) with the current
 * effective ids, a block device exclusively; no_symlinks: none followed. Then
 * attaches a regular file to a loop device and checks the ext2 magic. */
int helper_open_source(const char *source, const char *path, bool ro, bool no_symlinks,
		       struct stat *st);
int helper_attach_source(const char *source, int fd, const struct stat *st, bool ro);

/* The user's live instances (instances.c): refuses past user_mount_max, else
 * records this one, alive while the device fd (shared-locked here) is open. */
void helper_instance_register(const struct helper_config *c, const char *source, int devfd);

/* /dev/fuse, with the iomap bit if wanted and the kernel grants it (kmount.c). */
int helper_open_fuse(bool *iomap, bool want);
/* Mounts fusefd on the directory mntfd (named mnt in messages) as the options
 * say and closes fusefd; the server's verdict can only make it read-only.
 * Returns the new
 * mount's fd, through which helper_unmount() detaches it again. */
int helper_mount(const char *source, const char *type, int mntfd, const char *mnt,
		 int fusefd, const struct helper_opts *o, uint32_t verdict);
void helper_unmount(int mfd);

/* Server connection (client.c): connect and check the peer; send the request;
 * get the verdict (fatal unless ok; returns its flags); send SERVE (0 or -1). */
int helper_connect(void);
uint32_t helper_request(int sock, int fusefd, int devfd, uint32_t flags,
			const char *options, const char *source);
int helper_serve(int sock);

#endif
