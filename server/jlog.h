/* server/jlog.h: the journal writer: logs a transaction (ec_txn) into the
 * filesystem's internal jbd2 journal so that a crash at any instant leaves
 * either the whole transaction or none of it after a replay (ours at mount,
 * e2fsck's, or kernel ext4's).
 * The log holds one transaction at a time, alternately in the two halves of
 * the journal; the journal superblock points at the newest committed one.
 * A commit: the transaction's blocks (descriptor and copies) into the half
 * not in use; a device flush (it also makes the previous transaction's home
 * writes and the new data blocks durable: ordered data); the journal
 * superblock and the commit block; a flush. The caller then writes the
 * blocks home, without a flush: the next commit's first flush covers them. */
#ifndef EC_JLOG_H
#define EC_JLOG_H

#include <ext2fs/ext2fs.h>

#include "txn.h"

struct ec_jlog;

/* The device below any transaction: one block written at blk (filesystem
 * block size), and a device cache flush. */
struct ec_jlog_dev {
	errcode_t (*write)(void *arg, blk64_t blk, const char *data);
	errcode_t (*flush)(void *arg);
	void *arg;
};

/* Prepares writing to fs's internal journal, which must be empty (replayed);
 * 0, or -1 with the reason in err. */
int ec_jlog_open(ext2_filsys fs, struct ec_jlog **out, char *err, size_t errlen);

/* The most blocks one transaction may hold. */
size_t ec_jlog_capacity(const struct ec_jlog *j);

/* Logs and commits t (at most ec_jlog_capacity() blocks); the blocks are
 * then to be written home by the caller. */
errcode_t ec_jlog_commit(struct ec_jlog *j, struct ec_txn *t, const struct ec_jlog_dev *dev);

/* After the last transaction went home: a flush, the journal marked empty,
 * a flush. */
errcode_t ec_jlog_close(struct ec_jlog *j, const struct ec_jlog_dev *dev);

void ec_jlog_free(struct ec_jlog *j);

/* Transactions committed and blocks logged so far. */
void ec_jlog_stats(const struct ec_jlog *j, unsigned long long *commits,
		   unsigned long long *blocks);

#endif
