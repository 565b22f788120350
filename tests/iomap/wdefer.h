/* wdefer.h: one FUSE_IOMAP_BEGIN reply for the writable file "w" of
 * iomap-test-server held back, for iomap-race's punch-writeback case.
 * Reading the extended attribute "user.iomap.defer" of w arms it; the next
 * write BEGIN of w is then answered in the server's books at once (blocks
 * allocated, the mapping of the whole run of blocks at its position
 * computed) but the reply is sent only after the server has answered a
 * FUSE_FALLOCATE and then another write BEGIN of w, or after WD_TIMEOUT_MS.
 * Until then the server goes on answering everything else. */
#ifndef IOMAP_WDEFER_H
#define IOMAP_WDEFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../proto/fuse_iomap.h"

#define WD_TIMEOUT_MS	10000

enum wd_event { WD_FALLOCATE, WD_WRITE_BEGIN };

/* Arm (if idle); describe the state into buf:
 * "defer=idle|armed|held held=N punched=N released=N timeouts=N"
 * (punched: FUSE_FALLOCATE answered while a reply was held) */
void wd_arm(char *buf, size_t len);
/* The state only, as wd_arm writes it. */
void wd_describe(char *buf, size_t len);
/* Whether a write BEGIN of w must be held back: armed and nothing held. */
bool wd_wants(void);
/* Hold the reply out (of unique) until its time comes. */
void wd_hold(uint64_t unique, const struct fuse_iomap_begin_out *out);
/* The server answered a request of this kind. */
void wd_event(enum wd_event ev);
/* Milliseconds until a held reply times out, or -1 when none is held. */
int wd_timeout_ms(void);
/* A held reply whose time has come (events seen, or timed out): true once,
 * with what to send. */
bool wd_due(uint64_t *unique, struct fuse_iomap_begin_out *out);

#endif
