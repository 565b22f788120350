/* helper/privs.c: who called the helper, and the effective privileges it works
 * with. Called by root, it keeps them. Called by a user through the setuid-root
 * installation, it works as that user (effective ids = real ids, so the kernel
 * checks every user-named path with the user's rights) and takes root back only
 * around what needs it (helper_privs_raise/drop): reading /etc, loop devices,
 * the server socket, mount(2). A user's environment is dropped at once. */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool user, setuid_root;
static uid_t real_uid;
static gid_t real_gid, saved_egid;

/* fds 0-2 must be open, or /dev/fuse or a device could become a caller's
 * "stderr" and get our messages written into it. */
static void open_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		if (open("/dev/null", O_RDWR) != fd)
			abort();	/* nowhere to report to */
	}
}

void helper_privs_init(void)
{
	open_std_fds();
	real_uid = getuid();
	real_gid = getgid();
	saved_egid = getegid();
	user = real_uid != 0;
	setuid_root = geteuid() == 0;
	/* nothing of a user's environment reaches the libraries either: libmount
	 * honours LIBMOUNT_DEBUG even in a setuid process */
	if (user && clearenv())
		abort();
	if (setuid_root)
		helper_privs_drop();
}

void helper_privs_require(void)
{
	if (!setuid_root)
		helper_fail(EXIT_USAGE, "only root may mount: mount.fuse.ext4 is not installed "
			    "setuid root (called by uid %u)", (unsigned)real_uid);
}

bool helper_is_user(void)
{
	return user;
}

uid_t helper_uid(void)
{
	return real_uid;
}

static void set_ids(uid_t euid, gid_t egid)
{
	uid_t r, e, s;

	/* changing the group needs root: become root first, the user last */
	if (seteuid(0) || setegid(egid) || seteuid(euid) || getresuid(&r, &e, &s) ||
	    e != euid || getegid() != egid)
		helper_fail(EXIT_SYSTEM, "cannot switch to uid %u: %s", (unsigned)euid,
			    strerror(errno));
}

void helper_privs_raise(void)
{
	if (user)
		set_ids(0, saved_egid);
}

void helper_privs_drop(void)
{
	if (user)
		set_ids(real_uid, real_gid);
}

bool helper_denied(int err)
{
	return user && (err == EACCES || err == EPERM);
}

int helper_open_nosymlinks(const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}
