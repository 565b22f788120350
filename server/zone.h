/* server/zone.h: the system zone (metadata blocks) and extent checks against it. */
#ifndef EC_ZONE_H
#define EC_ZONE_H

#include "ctx.h"

/* Builds c->zone from the group descriptors and the journal; 0 or errno. */
int ec_zone_build(struct ec_ctx *c);
/* 0 when blocks [pblk, pblk + n) are inside the filesystem and outside
 * the system zone; otherwise reports corruption of ino and returns EIO. */
int ec_zone_check(struct ec_ctx *c, ext2_ino_t ino, blk64_t pblk, blk64_t n);
void ec_zone_free(struct ec_ctx *c);

#endif
