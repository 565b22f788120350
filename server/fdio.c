/* server/fdio.c: io_manager that moves blocks with pread/pwrite on a file
 * descriptor the server was given; it never opens a path. When the fd has
 * O_DIRECT, unaligned transfers go through a bounce buffer aligned to the
 * device's logical block size: a block write then reads and rewrites no
 * neighbouring block, which in iomap mode may hold file data the kernel is
 * writing at the same time.
 * Single-block transfers (metadata, mostly) go through a direct-mapped
 * write-back cache: a block written several times while the server handles
 * one request (an inode table block for every block an extent tree gains)
 * reaches the device once, when the server writes the dirty blocks back
 * (ec_fdio_write_back(), before every reply), when its slot is needed for
 * another block, or at flush and close. Larger transfers see the dirty
 * blocks they overlap; freed blocks are dropped unwritten (ec_fdio_discard()).
 * With a journal attached (ec_fdio_journal_attach()), every write but file
 * data joins the running transaction instead (reads see it), and a flush
 * commits it through the journal and writes it home. */
#include "fdio.h"
#include "jlog.h"
#include "log.h"
#include "powercut.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define EC_DIRECT_ALIGN_MAX 65536
#define EC_CACHE_SLOTS 4096

struct fdio {
	int fd;
	size_t align;			/* O_DIRECT transfer unit, 0 without O_DIRECT */
	char *cache;			/* EC_CACHE_SLOTS blocks, or NULL */
	unsigned long long *tag;	/* block number + 1 per slot, 0 = empty */
	bool *dirty;			/* per slot: newer than the device */
	unsigned *dirty_list;		/* the dirty slots, in the order dirtied */
	unsigned ndirty;
	struct ec_jlog *jl;		/* the journal writer, or NULL */
	struct ec_txn *txn;		/* its running transaction */
	size_t jbs;			/* the transaction's block size */
	bool direct;			/* file data: bypasses the transaction */
	bool (*fixed)(void *, blk64_t);	/* a block that only ever holds metadata */
	void *fixed_arg;
	struct sums {			/* content hashes of fixed blocks at home */
		blk64_t *blk;		/* block + 1, 0 = empty */
		uint64_t *h;
		size_t cap, n;
		uint64_t key[2];
	} sums;
};

static struct struct_io_manager fdio_struct;
io_manager ec_fdio_manager = &fdio_struct;

void ec_fdio_name(int fd, unsigned int align, char *buf, size_t len)
{
	if (align)
		snprintf(buf, len, "fd:%d/%u", fd, align);
	else
		snprintf(buf, len, "fd:%d", fd);
}

/* Full pread/pwrite of len bytes at off; short reads past the end are an error. */
static errcode_t raw_io(int fd, bool write, void *buf, size_t len, off_t off)
{
	if (write && ec_powercut_write(fd, buf, len, off))
		return 0;
	while (len) {
		ssize_t n = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return write ? EXT2_ET_SHORT_WRITE : EXT2_ET_SHORT_READ;
		buf = (char *)buf + n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* Transfer through a bounce buffer aligned to a (O_DIRECT, unaligned request). */
static errcode_t bounce_io(int fd, size_t a, bool write, void *buf, size_t len, off_t off)
{
	off_t start = off & ~(off_t)(a - 1);
	size_t span = ((size_t)(off - start) + len + a - 1) & ~(a - 1);
	void *b;
	errcode_t err = 0;

	if (posix_memalign(&b, a, span))
		return EXT2_ET_NO_MEMORY;
	/* only a transfer of partial units reads what it does not replace */
	if (!write || start != off || span != len)
		err = raw_io(fd, false, b, span, start);
	if (err == EXT2_ET_SHORT_READ && write)
		err = 0; /* extending the last partial sector of a file */
	if (!err && write) {
		memcpy((char *)b + (off - start), buf, len);
		err = raw_io(fd, true, b, span, start);
	} else if (!err) {
		memcpy(buf, (char *)b + (off - start), len);
	}
	free(b);
	return err;
}

static errcode_t do_io(io_channel ch, bool write, void *buf, size_t len, off_t off)
{
	struct fdio *f = ch->private_data;

	if (f->align && (((uintptr_t)buf | (uintptr_t)off | len) & (f->align - 1)))
		return bounce_io(f->fd, f->align, write, buf, len, off);
	return raw_io(f->fd, write, buf, len, off);
}

/* Converts (block, count) to a byte range; count < 0 means -count bytes. */
static errcode_t range(io_channel ch, unsigned long long block, int count,
		       size_t *len, off_t *off)
{
	unsigned long long bs = (unsigned long long)ch->block_size;
	unsigned long long l = count < 0 ? (unsigned long long)-(long long)count
					 : (unsigned long long)count * bs;

	if (block > (unsigned long long)LLONG_MAX / bs || l > (unsigned long long)SSIZE_MAX ||
	    block * bs > (unsigned long long)LLONG_MAX - l)
		return EXT2_ET_LLSEEK_FAILED;
	*len = (size_t)l;
	*off = (off_t)(block * bs);
	return 0;
}

static void cache_drop(struct fdio *f)
{
	free(f->cache);
	free(f->tag);
	free(f->dirty);
	free(f->dirty_list);
	f->cache = NULL;
	f->tag = NULL;
	f->dirty = NULL;
	f->dirty_list = NULL;
	f->ndirty = 0;
}

/* The cache slot of block, or NULL when there is no cache. */
static char *slot(io_channel ch, unsigned long long block, unsigned long long **tag)
{
	struct fdio *f = ch->private_data;
	size_t i = (size_t)(block % EC_CACHE_SLOTS);

	if (!f->cache) {
		f->cache = malloc((size_t)EC_CACHE_SLOTS * (size_t)ch->block_size);
		f->tag = calloc(EC_CACHE_SLOTS, sizeof(*f->tag));
		f->dirty = calloc(EC_CACHE_SLOTS, sizeof(*f->dirty));
		f->dirty_list = calloc(EC_CACHE_SLOTS, sizeof(*f->dirty_list));
		if (!f->cache || !f->tag || !f->dirty || !f->dirty_list) {
			cache_drop(f);
			return NULL;
		}
	}
	*tag = &f->tag[i];
	return f->cache + i * (size_t)ch->block_size;
}

/* Writes the block in slot i to the device (a failed write is reported
 * once, to whoever caused it). */
static errcode_t write_slot(io_channel ch, unsigned i)
{
	struct fdio *f = ch->private_data;
	size_t bs = (size_t)ch->block_size;
	errcode_t err = do_io(ch, true, f->cache + i * bs, bs, (off_t)((f->tag[i] - 1) * bs));

	if (err && ch->write_error)
		err = ch->write_error(ch, (unsigned long)(f->tag[i] - 1), 1, f->cache + i * bs,
				      bs, 0, err);
	return err;
}

/* Writes every dirty slot whose block is in [first, last); they are clean
 * afterwards, even after an error; the first error. (A slot is dirty
 * exactly while it is on the list, once.) */
static errcode_t write_dirty(io_channel ch, unsigned long long first, unsigned long long last)
{
	struct fdio *f = ch->private_data;
	errcode_t err = 0, e;
	unsigned n = 0;

	for (unsigned k = 0; k < f->ndirty; k++) {
		unsigned i = f->dirty_list[k];

		if (f->tag[i] - 1 < first || f->tag[i] - 1 >= last) {
			f->dirty_list[n++] = i;
			continue;
		}
		f->dirty[i] = false;
		e = write_slot(ch, i);
		if (!err)
			err = e;
	}
	f->ndirty = n;
	return err;
}

errcode_t ec_fdio_write_back(io_channel ch)
{
	if (ch->manager != ec_fdio_manager || !((struct fdio *)ch->private_data)->ndirty)
		return 0;
	return write_dirty(ch, 0, ULLONG_MAX);
}

/* Blocks [first, last) as bytes [off, off + len) cover them. */
static void blocks_of(io_channel ch, off_t off, size_t len, unsigned long long *first,
		      unsigned long long *last)
{
	unsigned long long bs = (unsigned)ch->block_size;

	*first = (unsigned long long)off / bs;
	*last = ((unsigned long long)off + len + bs - 1) / bs;
}

/* Before a transfer of the bytes [off, off + len) that bypasses the cache:
 * the dirty blocks it overlaps reach the device first. */
static errcode_t write_overlapped(io_channel ch, off_t off, size_t len)
{
	unsigned long long first, last;

	if (!((struct fdio *)ch->private_data)->ndirty)
		return 0;
	blocks_of(ch, off, len, &first, &last);
	return write_dirty(ch, first, last);
}

/* Forgets cached copies of the bytes [off, off + len), which must not be
 * dirty (write_overlapped() first). */
static void cache_forget(io_channel ch, off_t off, size_t len)
{
	struct fdio *f = ch->private_data;
	unsigned long long b, first, last;

	if (!f->cache)
		return;
	blocks_of(ch, off, len, &first, &last);
	if (last - first >= EC_CACHE_SLOTS) {
		for (unsigned i = 0; i < EC_CACHE_SLOTS; i++)
			if (!f->dirty[i])
				f->tag[i] = 0;
		return;
	}
	for (b = first; b < last; b++)
		if (f->tag[b % EC_CACHE_SLOTS] == b + 1)
			f->tag[b % EC_CACHE_SLOTS] = 0;
}

void ec_fdio_discard(io_channel ch, unsigned long long block, unsigned long long count)
{
	struct fdio *f = ch->private_data;
	unsigned long long bs = (unsigned)ch->block_size;
	unsigned n = 0;

	if (ch->manager != ec_fdio_manager)
		return;
	if (f->txn)
		ec_txn_forget(f->txn, block * bs / f->jbs,
			      (count * bs + f->jbs - 1) / f->jbs);
	if (!f->cache)
		return;
	for (unsigned k = 0; k < f->ndirty; k++) {
		unsigned i = f->dirty_list[k];

		if (f->tag[i] - 1 < block || f->tag[i] - 1 - block >= count) {
			f->dirty_list[n++] = i;
			continue;
		}
		f->dirty[i] = false;
		f->tag[i] = 0;
	}
	f->ndirty = n;
	/* the clean copies too; more blocks than slots forget every clean slot */
	if (count > EC_CACHE_SLOTS)
		count = EC_CACHE_SLOTS;
	cache_forget(ch, (off_t)(block * bs), (size_t)(count * bs));
}

static errcode_t plain_read64(io_channel ch, unsigned long long block, int count, void *data)
{
	size_t len = 0;
	off_t off = 0;
	unsigned long long *tag = NULL;
	char *c = count == 1 ? slot(ch, block, &tag) : NULL;
	errcode_t err = range(ch, block, count, &len, &off);
	struct fdio *f = ch->private_data;

	if (!err && c && *tag == block + 1) {
		memcpy(data, c, len);
		return 0;
	}
	if (c && f->dirty[block % EC_CACHE_SLOTS])
		c = NULL;	/* the slot waits to be written: leave it */
	if (!err)
		err = write_overlapped(ch, off, len);
	if (!err)
		err = do_io(ch, false, data, len, off);
	if (!err && c) {
		memcpy(c, data, len);
		*tag = block + 1;
	}
	if (err && ch->read_error)
		return ch->read_error(ch, (unsigned long)block, count, data, len, 0, err);
	return err;
}

/* Block into its slot, dirty; the slot's earlier dirty block is written
 * first (*err). False when there is no cache: the caller writes through. */
static bool cache_write(io_channel ch, unsigned long long block, const void *data,
			errcode_t *err)
{
	struct fdio *f = ch->private_data;
	unsigned long long *tag;
	char *c = slot(ch, block, &tag);
	unsigned i = (unsigned)(block % EC_CACHE_SLOTS);

	if (!c)
		return false;
	/* the slot's dirty block goes out; the slot stays on the list */
	*err = f->dirty[i] && *tag != block + 1 ? write_slot(ch, i) : 0;
	if (*err)
		return true;
	memcpy(c, data, (size_t)ch->block_size);
	*tag = block + 1;
	if (!f->dirty[i]) {
		f->dirty[i] = true;
		f->dirty_list[f->ndirty++] = i;
	}
	return true;
}

static errcode_t plain_write64(io_channel ch, unsigned long long block, int count,
			       const void *data)
{
	size_t len = 0;
	off_t off = 0;
	errcode_t err = range(ch, block, count, &len, &off);

	if (err)
		return err;
	if (count == 1 && cache_write(ch, block, data, &err))
		return err;
	err = write_overlapped(ch, off, len);
	if (!err) {
		cache_forget(ch, off, len);
		err = do_io(ch, true, (void *)data, len, off);
	}
	if (err && ch->write_error)
		return ch->write_error(ch, (unsigned long)block, count, data, len, 0, err);
	return err;
}

#define EC_SUMS_MAX (1u << 20)

/* A block's hash: SipHash-2-4 under a key drawn at attach. Not a CRC:
 * metadata blocks end in their own crc32c, which makes a CRC over them
 * a constant; and keyed, so no content can be made to collide. */
static uint64_t rotl(uint64_t x, int b)
{
	return x << b | x >> (64 - b);
}

static void sip_round(uint64_t v[4])
{
	v[0] += v[1], v[1] = rotl(v[1], 13), v[1] ^= v[0], v[0] = rotl(v[0], 32);
	v[2] += v[3], v[3] = rotl(v[3], 16), v[3] ^= v[2];
	v[0] += v[3], v[3] = rotl(v[3], 21), v[3] ^= v[0];
	v[2] += v[1], v[1] = rotl(v[1], 17), v[1] ^= v[2], v[2] = rotl(v[2], 32);
}

static uint64_t block_hash(const uint64_t key[2], const char *data, size_t bs)
{
	uint64_t v[4] = { key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
			  key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull };
	uint64_t m;

	for (size_t i = 0; i + 8 <= bs; i += 8) {
		memcpy(&m, data + i, 8);
		v[3] ^= m;
		sip_round(v);
		sip_round(v);
		v[0] ^= m;
	}
	m = (uint64_t)bs << 56;
	v[3] ^= m;
	sip_round(v);
	sip_round(v);
	v[0] ^= m;
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The slot of block b in the table of home hashes (cap > n). */
static size_t sum_slot(const struct sums *t, blk64_t b)
{
	size_t i = (size_t)((b * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);

	while (t->blk[i] && t->blk[i] != b + 1)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static bool sums_grow(struct sums *t)
{
	struct sums n = { .cap = t->cap ? 2 * t->cap : 1024, .key = { t->key[0], t->key[1] } };

	if (t->n >= EC_SUMS_MAX)
		return false;
	n.blk = calloc(n.cap, sizeof(*n.blk));
	n.h = malloc(n.cap * sizeof(*n.h));
	if (!n.blk || !n.h) {
		free(n.blk);
		free(n.h);
		return false;
	}
	for (size_t i = 0; i < t->cap; i++) {
		if (t->blk[i]) {
			size_t k = sum_slot(&n, t->blk[i] - 1);

			n.blk[k] = t->blk[i];
			n.h[k] = t->h[i];
			n.n++;
		}
	}
	free(t->blk);
	free(t->h);
	*t = n;
	return true;
}

/* What fixed block b holds at home now (read or written). */
static void sum_note(struct fdio *f, blk64_t b, const char *data)
{
	struct sums *t = &f->sums;
	size_t i;

	if (!f->fixed || !f->fixed(f->fixed_arg, b))
		return;
	if (4 * (t->n + 1) > 3 * t->cap && !sums_grow(t))
		return;
	i = sum_slot(t, b);
	t->n += !t->blk[i];
	t->blk[i] = b + 1;
	t->h[i] = block_hash(t->key, data, f->jbs);
}

/* Whether fixed block b holds data at home already. */
static bool sum_same(const struct fdio *f, blk64_t b, const char *data)
{
	const struct sums *t = &f->sums;
	size_t i;

	if (!t->cap || !f->fixed(f->fixed_arg, b))
		return false;
	i = sum_slot(t, b);
	return t->blk[i] && t->h[i] == block_hash(t->key, data, f->jbs);
}

static void sums_free(struct sums *t)
{
	free(t->blk);
	free(t->h);
	memset(t, 0, sizeof(*t));
}

/* Notes the home hashes of blocks [off, off + len) just read into data. */
static void sums_read(io_channel ch, off_t off, size_t len, const char *data)
{
	struct fdio *f = ch->private_data;

	if (!f->fixed || off % f->jbs || len % f->jbs)
		return;
	for (size_t i = 0; i < len / f->jbs; i++)
		sum_note(f, (blk64_t)off / f->jbs + i, data + i * f->jbs);
}

/* Whether a write joins the running transaction. */
static bool journaling(const struct fdio *f)
{
	return f->txn && !f->direct;
}

/* Reads the home copy of transaction block b (no transaction involved). */
static errcode_t read_home(io_channel ch, blk64_t b, char *buf)
{
	struct fdio *f = ch->private_data;
	off_t off = (off_t)(b * f->jbs);
	errcode_t err = write_overlapped(ch, off, f->jbs);

	return err ? err : do_io(ch, false, buf, f->jbs, off);
}

/* The bytes [off, off + len) into the running transaction, block by block
 * (a block only partly written starts from its current contents). */
static errcode_t capture(io_channel ch, off_t off, size_t len, const char *data)
{
	struct fdio *f = ch->private_data;
	unsigned long long bs = f->jbs, end = (unsigned long long)off + len;

	for (unsigned long long b = (unsigned long long)off / bs; b * bs < end; b++) {
		unsigned long long lo = b * bs > (unsigned long long)off ? b * bs : (unsigned long long)off;
		unsigned long long hi = (b + 1) * bs < end ? (b + 1) * bs : end;
		bool fresh;
		char *slot = ec_txn_put(f->txn, b, &fresh);
		errcode_t err;

		if (!slot)
			return EXT2_ET_NO_MEMORY;
		if (fresh && hi - lo < bs && (err = read_home(ch, b, slot))) {
			ec_txn_forget(f->txn, b, 1);
			return err;
		}
		memcpy(slot + (lo - b * bs), data + (lo - (unsigned long long)off), hi - lo);
	}
	return 0;
}

/* Copies what the running transaction holds of bytes [off, off + len) over buf. */
static void overlay(io_channel ch, off_t off, size_t len, char *buf)
{
	struct fdio *f = ch->private_data;
	unsigned long long bs = f->jbs, end = (unsigned long long)off + len;

	if (!f->txn || !ec_txn_count(f->txn))
		return;
	for (unsigned long long b = (unsigned long long)off / bs; b * bs < end; b++) {
		unsigned long long lo = b * bs > (unsigned long long)off ? b * bs : (unsigned long long)off;
		unsigned long long hi = (b + 1) * bs < end ? (b + 1) * bs : end;
		const char *slot = ec_txn_get(f->txn, b);

		if (slot)
			memcpy(buf + (lo - (unsigned long long)off), slot + (lo - b * bs), hi - lo);
	}
}

static errcode_t fdio_read64(io_channel ch, unsigned long long block, int count, void *data)
{
	size_t len = 0;
	off_t off = 0;
	errcode_t err = range(ch, block, count, &len, &off);

	if (!err)
		err = plain_read64(ch, block, count, data);
	if (!err)
		sums_read(ch, off, len, data);
	if (!err)
		overlay(ch, off, len, data);
	return err;
}

static errcode_t fdio_write64(io_channel ch, unsigned long long block, int count,
			      const void *data)
{
	struct fdio *f = ch->private_data;
	size_t len = 0;
	off_t off = 0;
	errcode_t err = range(ch, block, count, &len, &off);

	if (err)
		return err;
	if (journaling(f))
		return capture(ch, off, len, data);
	if (f->txn)
		ec_txn_forget(f->txn, (blk64_t)off / f->jbs,
			      ((blk64_t)off + len + f->jbs - 1) / f->jbs - (blk64_t)off / f->jbs);
	return plain_write64(ch, block, count, data);
}

static errcode_t fdio_read(io_channel ch, unsigned long block, int count, void *data)
{
	return fdio_read64(ch, block, count, data);
}

static errcode_t fdio_write(io_channel ch, unsigned long block, int count, const void *data)
{
	return fdio_write64(ch, block, count, data);
}

static errcode_t fdio_write_byte(io_channel ch, unsigned long offset, int size, const void *data)
{
	errcode_t err;

	if (size < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	if (journaling(ch->private_data))
		return capture(ch, (off_t)offset, (size_t)size, data);
	err = write_overlapped(ch, (off_t)offset, (size_t)size);
	if (err)
		return err;
	cache_forget(ch, (off_t)offset, (size_t)size);
	return do_io(ch, true, (void *)data, (size_t)size, (off_t)offset);
}

/* A device cache flush, after the cached writes. */
static errcode_t sync_dev(io_channel ch)
{
	struct fdio *f = ch->private_data;
	errcode_t err = ec_fdio_write_back(ch);

	if (err || ec_powercut_sync(f->fd))
		return err;
	return fsync(f->fd) ? errno : 0;
}

/* One transaction block to the device, past the transaction and the cache. */
static errcode_t write_block(io_channel ch, blk64_t b, const char *data)
{
	struct fdio *f = ch->private_data;
	off_t off = (off_t)(b * f->jbs);
	errcode_t err = write_overlapped(ch, off, f->jbs);

	if (err)
		return err;
	cache_forget(ch, off, f->jbs);
	err = do_io(ch, true, (void *)data, f->jbs, off);
	if (!err)
		sum_note(f, b, data);
	return err;
}

static errcode_t dev_write(void *arg, blk64_t b, const char *data)
{
	return write_block(arg, b, data);
}

static errcode_t dev_flush(void *arg)
{
	return sync_dev(arg);
}

/* Writes the running transaction's blocks home; empties it. */
static errcode_t write_home(io_channel ch)
{
	struct fdio *f = ch->private_data;
	blk64_t *blks;
	char **data;
	size_t n;
	errcode_t err = 0;

	ec_txn_sorted(f->txn, &n, &blks, &data);
	for (size_t i = 0; !err && i < n; i++)
		err = write_block(ch, blks[i], data[i]);
	if (!err)
		ec_txn_clear(f->txn);
	return err;
}

/* Drops the fixed blocks the transaction holds unchanged (libext2fs
 * writes every bitmap and descriptor block at each flush). */
static void drop_unchanged(struct fdio *f)
{
	blk64_t *blks;
	char **data;
	size_t n;

	if (!f->sums.n)
		return;
	ec_txn_sorted(f->txn, &n, &blks, &data);
	for (size_t i = 0; i < n; i++)
		if (sum_same(f, blks[i], data[i]))
			ec_txn_forget(f->txn, blks[i], 1);
}

/* Commits the running transaction: logged, then written home. One larger
 * than the journal can hold goes home unlogged (said in the log): what a
 * single request changed never exceeds it on any journal mke2fs makes. */
static errcode_t commit(io_channel ch)
{
	struct fdio *f = ch->private_data;
	struct ec_jlog_dev dev = { dev_write, dev_flush, ch };
	errcode_t err;

	drop_unchanged(f);
	if (!ec_txn_count(f->txn))
		return sync_dev(ch);
	if (ec_txn_count(f->txn) > ec_jlog_capacity(f->jl)) {
		ec_log(EC_LOG_WARNING, "ext4cell-server: journal: a transaction of %zu blocks "
		       "exceeds the journal (%zu); written unlogged\n", ec_txn_count(f->txn),
		       ec_jlog_capacity(f->jl));
		err = write_home(ch);
		return err ? err : sync_dev(ch);
	}
	err = ec_jlog_commit(f->jl, f->txn, &dev);
	return err ? err : write_home(ch);
}

static errcode_t fdio_flush(io_channel ch)
{
	struct fdio *f = ch->private_data;

	return f->txn ? commit(ch) : sync_dev(ch);
}

int ec_fdio_journal_attach(io_channel ch, struct ec_jlog *jl, size_t bs,
			   bool (*fixed)(void *arg, blk64_t blk), void *arg)
{
	struct fdio *f = ch->private_data;

	if (ch->manager != ec_fdio_manager || f->txn || !(f->txn = ec_txn_new(bs)))
		return -1;
	f->jl = jl;
	f->jbs = bs;
	/* without a key, no block is ever left out */
	if (fixed && getrandom(f->sums.key, sizeof(f->sums.key), 0) == sizeof(f->sums.key)) {
		f->fixed = fixed;
		f->fixed_arg = arg;
	}
	return 0;
}

errcode_t ec_fdio_journal_detach(io_channel ch)
{
	struct fdio *f = ch->private_data;
	struct ec_jlog_dev dev = { dev_write, dev_flush, ch };
	errcode_t err;

	if (ch->manager != ec_fdio_manager || !f->txn)
		return 0;
	err = commit(ch);
	if (!err)
		err = ec_jlog_close(f->jl, &dev);
	ec_txn_free(f->txn);
	ec_jlog_free(f->jl);
	sums_free(&f->sums);
	f->txn = NULL;
	f->jl = NULL;
	f->fixed = NULL;
	return err;
}

bool ec_fdio_journal_due(io_channel ch)
{
	struct fdio *f = ch->private_data;

	return ch->manager == ec_fdio_manager && f->txn &&
	       ec_txn_count(f->txn) > ec_jlog_capacity(f->jl) / 2;
}

void ec_fdio_direct(io_channel ch, bool on)
{
	if (ch->manager == ec_fdio_manager)
		((struct fdio *)ch->private_data)->direct = on;
}

static errcode_t fdio_set_blksize(io_channel ch, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	if (blksize != ch->block_size) {
		errcode_t err = ec_fdio_write_back(ch);

		if (err)
			return err;
		cache_drop(ch->private_data);
	}
	ch->block_size = blksize;
	return 0;
}

static errcode_t fdio_set_option(io_channel ch, const char *opt, const char *arg)
{
	(void)ch, (void)opt, (void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t fdio_discard(io_channel ch, unsigned long long block, unsigned long long count)
{
	(void)ch, (void)block, (void)count;
	return EXT2_ET_UNIMPLEMENTED;
}

static errcode_t fdio_open(const char *name, int flags, io_channel *ret)
{
	io_channel ch = NULL;
	struct fdio *f = NULL;
	char *end;
	unsigned long align = 0;
	long fd;
	int fl;
	errcode_t err;

	if (!name || strncmp(name, "fd:", 3))
		return EXT2_ET_BAD_DEVICE_NAME;
	errno = 0;
	fd = strtol(name + 3, &end, 10);
	if (errno || end == name + 3 || fd < 0 || fd > INT_MAX)
		return EXT2_ET_BAD_DEVICE_NAME;
	if (*end == '/') {
		align = strtoul(end + 1, &end, 10);
		if (errno || align < 512 || align > EC_DIRECT_ALIGN_MAX || (align & (align - 1)))
			return EXT2_ET_BAD_DEVICE_NAME;
	}
	if (*end)
		return EXT2_ET_BAD_DEVICE_NAME;
	fl = fcntl((int)fd, F_GETFL);
	if (fl < 0)
		return errno;
	if ((flags & IO_FLAG_RW) && (fl & O_ACCMODE) == O_RDONLY)
		return EACCES;
	err = ext2fs_get_memzero(sizeof(*ch), &ch);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*f), &f);
	if (!err)
		err = ext2fs_get_mem(strlen(name) + 1, &ch->name);
	if (err) {
		if (ch)
			ext2fs_free_mem(&ch->name);
		ext2fs_free_mem(&f);
		ext2fs_free_mem(&ch);
		return err;
	}
	strcpy(ch->name, name);
	f->fd = (int)fd;
	/* O_DIRECT without a unit named: the largest common one */
	f->align = fl & O_DIRECT ? (align ? align : 4096) : 0;
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = ec_fdio_manager;
	ch->block_size = 1024;
	ch->refcount = 1;
	ch->private_data = f;
	ch->align = (int)f->align;
	*ret = ch;
	return 0;
}

static errcode_t fdio_close(io_channel ch)
{
	errcode_t err;

	if (--ch->refcount > 0)
		return 0;
	err = ec_fdio_write_back(ch);
	ec_txn_free(((struct fdio *)ch->private_data)->txn);
	ec_jlog_free(((struct fdio *)ch->private_data)->jl);
	sums_free(&((struct fdio *)ch->private_data)->sums);
	cache_drop(ch->private_data);
	ext2fs_free_mem(&ch->private_data);
	ext2fs_free_mem(&ch->name);
	ext2fs_free_mem(&ch);
	return err;
}

static struct struct_io_manager fdio_struct = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "ext4cell fd I/O manager",
	.open = fdio_open,
	.close = fdio_close,
	.set_blksize = fdio_set_blksize,
	.read_blk = fdio_read,
	.write_blk = fdio_write,
	.flush = fdio_flush,
	.write_byte = fdio_write_byte,
	.set_option = fdio_set_option,
	.read_blk64 = fdio_read64,
	.write_blk64 = fdio_write64,
	.discard = fdio_discard,
};
