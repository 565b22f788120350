/* server/session.h: the mount a server run by hand makes for itself, and the
 * signals that stop serving. The request loop is wire.c. */
#ifndef EC_SESSION_H
#define EC_SESSION_H

#include "ctx.h"

/* Mounts c on mnt through libfuse (as root, or through the setuid
 * fusermount3 for a user), with fsname=fsname and the options of c->opt;
 * sets c->fuse_fd. 0, or -1 after logging why. */
int ec_session_mount(struct ec_ctx *c, const char *fsname, const char *mnt);
/* Unmounts what ec_session_mount mounted (unsandboxed servers only: a
 * sandboxed one may not unmount) and forgets it. */
void ec_session_unmount(struct ec_ctx *c, bool unmount);
/* SIGTERM, SIGINT and SIGHUP stop the request loop; SIGPIPE is ignored. */
int ec_session_signals(void);

#endif
