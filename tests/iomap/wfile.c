/* wfile.c: the writable file "w" of iomap-test-server (see wfile.h). Blocks
 * come from a free-space map of the allocation area, lowest free block first,
 * so that blocks freed by truncate or a hole punch are reused at once: a
 * kernel that still wrote to a freed block would corrupt the data of the
 * next owner, which the tests then see. */
#include <errno.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "wfile.h"

enum { W_HOLE, W_UNWRITTEN, W_WRITTEN };

static struct {
	uint64_t max, nblocks;		/* size limit, in bytes and blocks */
	uint64_t base, nfree;		/* allocation area: address, blocks */
	uint64_t size, *addr;
	uint8_t *state;
	uint8_t *used;			/* free-space map */
	uint64_t lowest;		/* no free block below this one */
	uint64_t ioend_on_hole;
} w;

int wf_init(uint64_t max, uint64_t base, uint64_t end)
{
	w.max = max;
	w.nblocks = max / M_BLOCK;
	w.base = base;
	w.nfree = (end - base) / M_BLOCK;
	w.addr = calloc(w.nblocks, sizeof(*w.addr));
	w.state = calloc(w.nblocks, 1);
	w.used = calloc(w.nfree, 1);
	return w.addr && w.state && w.used ? 0 : ENOMEM;
}

static int alloc_block(uint64_t b)
{
	for (uint64_t i = w.lowest; i < w.nfree; i++) {
		if (w.used[i])
			continue;
		w.used[i] = 1;
		w.lowest = i + 1;
		w.addr[b] = w.base + i * M_BLOCK;
		w.state[b] = W_UNWRITTEN;
		return 0;
	}
	return ENOSPC;
}

static void free_block(uint64_t b)
{
	uint64_t i;

	if (w.state[b] == W_HOLE)
		return;
	i = (w.addr[b] - w.base) / M_BLOCK;
	w.used[i] = 0;
	if (i < w.lowest)
		w.lowest = i;
	w.state[b] = W_HOLE;
}

static uint64_t blocks_up(uint64_t off)
{
	return (off + M_BLOCK - 1) / M_BLOCK;
}

int wf_map(uint64_t pos, uint64_t count, bool alloc, uint32_t dev,
	   struct fuse_iomap_io *m)
{
	uint64_t b = pos / M_BLOCK, eb = w.nblocks, i;

	if (alloc) {
		if (b >= w.nblocks || count > w.max - pos)
			return EFBIG;
		eb = blocks_up(pos + count);
		for (i = b; i < eb; i++) {
			if (w.state[i] != W_HOLE)
				continue;
			if (alloc_block(i)) {
				if (i == b)
					return ENOSPC;
				eb = i;	/* map what could be allocated */
				break;
			}
		}
	}
	memset(m, 0, sizeof(*m));
	m->offset = b * M_BLOCK;
	m->addr = FUSE_IOMAP_NULL_ADDR;
	if (b >= w.nblocks) {
		m->length = 1ULL << 30;
		return 0;
	}
	/* the run of blocks at b that share a state (and are contiguous) */
	for (i = b + 1; i < eb && w.state[i] == w.state[b] &&
	     (w.state[b] == W_HOLE || w.addr[i] == w.addr[i - 1] + M_BLOCK); i++)
		;
	m->length = (i - b) * M_BLOCK;
	if (w.state[b] != W_HOLE) {
		m->type = w.state[b] == W_WRITTEN ? FUSE_IOMAP_TYPE_MAPPED
						  : FUSE_IOMAP_TYPE_UNWRITTEN;
		m->addr = w.addr[b];
		m->dev = dev;
	}
	return 0;
}

int wf_ioend(uint64_t pos, uint64_t written, int error)
{
	if (pos > w.max || written > w.max - pos)
		return EINVAL;
	if (error)
		return 0;
	for (uint64_t b = pos / M_BLOCK; b < blocks_up(pos + written); b++) {
		if (w.state[b] == W_HOLE)
			w.ioend_on_hole++;	/* data written where no block is */
		else
			w.state[b] = W_WRITTEN;
	}
	if (pos + written > w.size)
		w.size = pos + written;
	return 0;
}

int wf_truncate(uint64_t size)
{
	if (size > w.max)
		return EFBIG;
	for (uint64_t b = blocks_up(size); b < w.nblocks; b++)
		free_block(b);
	w.size = size;
	return 0;
}

int wf_fallocate(uint32_t mode, uint64_t off, uint64_t len)
{
	uint64_t end, b;
	int err = 0;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		return EOPNOTSUPP;
	if (off > w.max || len > w.max - off)
		return EFBIG;
	end = off + len;
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		/* whole blocks only: the kernel zeroes the partial ones */
		for (b = blocks_up(off); b < end / M_BLOCK; b++)
			free_block(b);
	} else if (mode & FALLOC_FL_ZERO_RANGE) {
		for (b = blocks_up(off); !err && b < end / M_BLOCK; b++) {
			if (w.state[b] == W_HOLE)
				err = alloc_block(b);
			else
				w.state[b] = W_UNWRITTEN;
		}
	} else {
		for (b = off / M_BLOCK; !err && b < blocks_up(end); b++)
			if (w.state[b] == W_HOLE)
				err = alloc_block(b);
	}
	if (!err && !(mode & FALLOC_FL_KEEP_SIZE) && end > w.size)
		w.size = end;
	return err;
}

int wf_preset(uint64_t size, uint64_t nblocks)
{
	if (size > w.max || nblocks > w.nblocks)
		return EFBIG;
	for (uint64_t b = 0; b < nblocks; b++) {
		if (alloc_block(b))
			return ENOSPC;
		w.state[b] = W_WRITTEN;
	}
	w.size = size;
	return 0;
}

uint64_t wf_size(void)
{
	return w.size;
}

uint64_t wf_blocks(void)
{
	uint64_t blocks = 0;

	for (uint64_t b = 0; b < w.nblocks; b++)
		blocks += w.state[b] != W_HOLE;
	return blocks;
}

void wf_describe(char *buf, size_t len)
{
	uint64_t blocks = wf_blocks(), unwritten = 0, free = 0;

	for (uint64_t b = 0; b < w.nblocks; b++)
		unwritten += w.state[b] == W_UNWRITTEN;
	for (uint64_t i = 0; i < w.nfree; i++)
		free += !w.used[i];
	snprintf(buf, len, "size=%llu blocks=%llu unwritten=%llu free=%llu ioend-on-hole=%llu",
		 (unsigned long long)w.size, (unsigned long long)blocks,
		 (unsigned long long)unwritten, (unsigned long long)free,
		 (unsigned long long)w.ioend_on_hole);
}
