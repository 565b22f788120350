/* server/session.h: the FUSE session and the request loop the server owns. */
#ifndef EC_SESSION_H
#define EC_SESSION_H

#include "ctx.h"

/* Creates the low-level session for c (mount options from c->opt). */
int ec_session_new(struct ec_ctx *c, const char *fsname);
/* Serves requests one at a time until unmount or a signal; 0 or -1. */
int ec_session_loop(struct ec_ctx *c);

#endif
