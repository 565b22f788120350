/* server/session.c: a server run by hand mounts itself through libfuse, the
 * one thing libfuse still does for us: as a user it goes through the setuid
 * fusermount3 (mount.fuse.ext4 and --fd-mode hand us a mounted /dev/fuse fd
 * instead). Such a mount is always classic: libfuse opens /dev/fuse and mounts
 * at once, with no moment to mark the fd for iomap. Requests are served by
 * wire.c, never by libfuse. Also the signals that stop serving. */
#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>

#include "session.h"
#include "log.h"
#include "printable.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct fuse_session *se;

int ec_session_mount(struct ec_ctx *c, const char *fsname, const char *mnt)
{
	static const struct fuse_lowlevel_ops none;
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	char *mopts, *name = ec_opt_escape(fsname);
	int rc;

	/* a comma in the name must not become an option of libfuse's */
	if (!name)
		return -1;
	rc = asprintf(&mopts, "fsname=%s,subtype=ext4%s%s%s", name,
		      c->opt.ro ? ",ro" : "",
		      c->opt.kernel || c->opt.allow_other ? ",allow_other" : "",
		      c->opt.fakeroot ? "" : ",default_permissions");
	free(name);
	if (rc < 0)
		return -1;
	rc = fuse_opt_add_arg(&args, "ext4cell-server") || fuse_opt_add_arg(&args, "-o") ||
	     fuse_opt_add_arg(&args, mopts);
	free(mopts);
	if (!rc)
		se = fuse_session_new(&args, &none, sizeof(none), c);
	fuse_opt_free_args(&args);
	if (!se) {
		ec_log(EC_LOG_ERR, "ext4cell-server: cannot create the FUSE session\n");
		return -1;
	}
	if (fuse_session_mount(se, mnt)) {
		ec_log(EC_LOG_ERR, "ext4cell-server: cannot mount %s on %s\n", c->devname, mnt);
		fuse_session_destroy(se);
		se = NULL;
		return -1;
	}
	c->fuse_fd = fuse_session_fd(se);
	return 0;
}

void ec_session_unmount(struct ec_ctx *c, bool unmount)
{
	if (!se)
		return;
	if (unmount)
		fuse_session_unmount(se);
	fuse_session_destroy(se);
	se = NULL;
	c->fuse_fd = -1;
}

static void on_signal(int sig)
{
	(void)sig;
	ec_wire_stop();
}

int ec_session_signals(void)
{
	struct sigaction sa;
	static const int stops[] = { SIGTERM, SIGINT, SIGHUP };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: read() returns EINTR */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (sigaction(stops[i], &sa, NULL))
			return -1;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL);
}
