/* server/txn.h: the running transaction of the journal writer: the newest
 * copy of every filesystem block changed since the last commit, by block
 * number, in memory until the commit logs them and writes them home. */
#ifndef EC_TXN_H
#define EC_TXN_H

#include <ext2fs/ext2fs.h>
#include <stdbool.h>
#include <stddef.h>

struct ec_txn;

/* A transaction of blocks of bs bytes; NULL when out of memory. */
struct ec_txn *ec_txn_new(size_t bs);
void ec_txn_free(struct ec_txn *t);

/* The copy of blk in t, or NULL. */
char *ec_txn_get(struct ec_txn *t, blk64_t blk);

/* The copy of blk to fill, made when t has none (*fresh set then: its
 * bytes are undefined); NULL when out of memory. Valid until the next put. */
char *ec_txn_put(struct ec_txn *t, blk64_t blk, bool *fresh);

/* Drops the copies of blocks [blk, blk + count). */
void ec_txn_forget(struct ec_txn *t, blk64_t blk, blk64_t count);

/* Blocks held. */
size_t ec_txn_count(const struct ec_txn *t);

/* The held blocks in ascending block order: *n of them, their numbers in
 * (*blks)[i] and their data at (*data)[i]; valid until the next change. */
void ec_txn_sorted(struct ec_txn *t, size_t *n, blk64_t **blks, char ***data);

/* Empties t (keeps its memory for the next transaction). */
void ec_txn_clear(struct ec_txn *t);

#endif
