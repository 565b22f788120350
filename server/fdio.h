/* server/fdio.h: a libext2fs io_manager on an already-open file descriptor. */
#ifndef EC_FDIO_H
#define EC_FDIO_H

#include <ext2fs/ext2fs.h>
#include <stdbool.h>

/* The manager; open it with the name produced by ec_fdio_name(). */
extern io_manager ec_fdio_manager;

/* Writes "fd:N" into buf (the only names ec_fdio_manager opens), or, for a
 * descriptor with O_DIRECT, "fd:N/A": every transfer on it then covers whole
 * units of A bytes (a power of two from 512 on: the device's logical block
 * size) at offsets and addresses that are multiples of A. */
void ec_fdio_name(int fd, unsigned int align, char *buf, size_t len);

/* Writes the blocks written to ch since the last call (single-block writes
 * wait in a cache) to the device, without a cache flush; 0 when ch is not
 * one of ec_fdio_manager's. The server calls it before every reply: what a
 * reply says is done is on the device. */
errcode_t ec_fdio_write_back(io_channel ch);

/* Forgets the cached copies of blocks [block, block + count), dirty ones
 * too, without writing them: their contents no longer matter (the blocks
 * were freed). */
void ec_fdio_discard(io_channel ch, unsigned long long block, unsigned long long count);

struct ec_jlog;

/* From now on, every write to ch but file data joins a transaction of
 * blocks of bs bytes, committed through jl at every flush (ext2fs_flush2,
 * io_channel_flush). fixed(arg, blk) says whether blk only ever holds
 * metadata (superblock, descriptors, bitmaps, inode tables): a commit
 * leaves out such blocks it would write unchanged. ch owns jl afterwards.
 * 0, or -1 (not ours, already attached, out of memory: jl stays the
 * caller's). */
int ec_fdio_journal_attach(io_channel ch, struct ec_jlog *jl, size_t bs,
			   bool (*fixed)(void *arg, blk64_t blk), void *arg);

/* Commits what is pending, marks the journal empty and stops journaling. */
errcode_t ec_fdio_journal_detach(io_channel ch);

/* Whether the running transaction should be committed now (half the
 * journal's room is used). */
bool ec_fdio_journal_due(io_channel ch);

/* While on, writes are file data: they go to the device (ordered before
 * the next commit), never into the transaction, and replace any copy of
 * their blocks it holds. */
void ec_fdio_direct(io_channel ch, bool on);

#endif
