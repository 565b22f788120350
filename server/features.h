/* server/features.h: which ext2/3/4 superblock features the server accepts. */
#ifndef EC_FEATURES_H
#define EC_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <ext2fs/ext2_fs.h>

enum ec_feature_verdict {
	EC_FEAT_RW = 0,		/* everything understood: read-write is safe */
	EC_FEAT_RO = 1,		/* read-only only: reason in msg */
	EC_FEAT_REFUSE = 2,	/* cannot be served at all: reason in msg */
};

/* Judges the feature bits of sb (journal recovery excluded: see journal.h).
 * Writes the name of the first feature responsible for the verdict into msg. */
enum ec_feature_verdict ec_features_check(const struct ext2_super_block *sb,
					  char *msg, size_t msglen);

#endif
