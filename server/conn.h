/* server/conn.h: the server's side of the helper protocol (proto/proto.h) in
 * socket mode: the connection systemd accepted (fd 3, sd_listen_fds), the
 * request with the fds, the verdict, the go-ahead to serve. */
#ifndef EC_CONN_H
#define EC_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "../proto/proto.h"

/* Returns the connection fd passed by socket activation (sd_listen_fds: exactly
 * one, fd 3; the LISTEN_* variables are removed), or -1 with what was expected
 * and what was found in err. */
int ec_conn_listen_fd(char *err, size_t errlen);
/* Checks the peer is root, bounds waits, receives the REQUEST into *m and checks
 * its fds (/dev/fuse; a block device or regular file). On failure it sends the
 * helper a refusing verdict, closes the fds and returns -1 with a reason in err. */
int ec_conn_request(int sock, struct proto_msg *m, char *err, size_t errlen);
/* Sends the verdict: error 0 (flags PROTO_VER_*) or a positive errno and reason. */
int ec_conn_verdict(int sock, int error, uint32_t flags, const char *text);
/* Waits for SERVE (the helper has mounted). 0, or -1 with a reason in err. */
int ec_conn_wait_serve(int sock, char *err, size_t errlen);

#endif
