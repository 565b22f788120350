/* server/txn.c: the running transaction as an open-addressing hash of block
 * numbers over an array of entries; a forgotten entry stays in the array,
 * marked dead, until the transaction is cleared. The entries' block order is
 * kept from one ec_txn_sorted() to the next until an entry is added (a
 * commit asks three times: unchanged blocks, the log, the home writes). */
#include "txn.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ec_txn {
	size_t bs;
	size_t n, cap, live;	/* entries used, allocated, not forgotten */
	blk64_t *blk;		/* per entry */
	bool *dead;		/* per entry */
	char *data;		/* cap blocks */
	size_t *bucket;		/* entry index + 1, 0 = empty; nbucket = 2 * cap */
	size_t *order;		/* every entry, by block number, when ordered */
	bool ordered;
	blk64_t *sorted_blk;	/* ec_txn_sorted()'s answer (cap each) */
	char **sorted_data;
};

struct ec_txn *ec_txn_new(size_t bs)
{
	struct ec_txn *t = calloc(1, sizeof(*t));

	if (t)
		t->bs = bs;
	return t;
}

void ec_txn_free(struct ec_txn *t)
{
	if (!t)
		return;
	free(t->blk);
	free(t->dead);
	free(t->data);
	free(t->bucket);
	free(t->order);
	free(t->sorted_blk);
	free(t->sorted_data);
	free(t);
}

static size_t hash(blk64_t blk, size_t nbucket)
{
	return (size_t)((blk * 0x9e3779b97f4a7c15ull) >> 17) & (nbucket - 1);
}

/* The bucket that holds blk, or the empty one where it would go. */
static size_t *find(const struct ec_txn *t, blk64_t blk)
{
	size_t nb = 2 * t->cap, i = hash(blk, nb);

	while (t->bucket[i] && t->blk[t->bucket[i] - 1] != blk)
		i = (i + 1) & (nb - 1);
	return &t->bucket[i];
}

static int grow(struct ec_txn *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	blk64_t *blk = realloc(t->blk, cap * sizeof(*blk));
	bool *dead;
	char *data, **sorted_data;
	size_t *bucket, *order;
	blk64_t *sorted_blk;

	if (!blk)
		return ENOMEM;
	t->blk = blk;
	dead = realloc(t->dead, cap * sizeof(*dead));
	if (!dead)
		return ENOMEM;
	t->dead = dead;
	if (!(order = realloc(t->order, cap * sizeof(*order))))
		return ENOMEM;
	t->order = order;
	if (!(sorted_blk = realloc(t->sorted_blk, cap * sizeof(*sorted_blk))))
		return ENOMEM;
	t->sorted_blk = sorted_blk;
	if (!(sorted_data = realloc(t->sorted_data, cap * sizeof(*sorted_data))))
		return ENOMEM;
	t->sorted_data = sorted_data;
	if (cap > SIZE_MAX / t->bs || !(data = realloc(t->data, cap * t->bs)))
		return ENOMEM;
	t->data = data;
	bucket = calloc(2 * cap, sizeof(*bucket));
	if (!bucket)
		return ENOMEM;
	free(t->bucket);
	t->bucket = bucket;
	t->cap = cap;
	for (size_t i = 0; i < t->n; i++)
		*find(t, t->blk[i]) = i + 1;
	return 0;
}

char *ec_txn_get(struct ec_txn *t, blk64_t blk)
{
	size_t i;

	if (!t->live)
		return NULL;
	i = *find(t, blk);
	return i && !t->dead[i - 1] ? t->data + (i - 1) * t->bs : NULL;
}

char *ec_txn_put(struct ec_txn *t, blk64_t blk, bool *fresh)
{
	size_t *b, i;

	if (t->n == t->cap && grow(t))
		return NULL;
	b = find(t, blk);
	if (!*b) {
		t->blk[t->n] = blk;
		t->dead[t->n] = true;
		*b = ++t->n;
		t->ordered = false;
	}
	i = *b - 1;
	*fresh = t->dead[i];
	if (t->dead[i]) {
		t->dead[i] = false;
		t->live++;
	}
	return t->data + i * t->bs;
}

static void kill(struct ec_txn *t, size_t i)
{
	if (!t->dead[i]) {
		t->dead[i] = true;
		t->live--;
	}
}

void ec_txn_forget(struct ec_txn *t, blk64_t blk, blk64_t count)
{
	if (!t->live || !count)
		return;
	if (count > t->n) {
		for (size_t i = 0; i < t->n; i++)
			if (t->blk[i] >= blk && t->blk[i] - blk < count)
				kill(t, i);
		return;
	}
	for (blk64_t b = blk; b - blk < count; b++) {
		size_t i = *find(t, b);

		if (i)
			kill(t, i - 1);
	}
}

size_t ec_txn_count(const struct ec_txn *t)
{
	return t->live;
}

static int by_block(const void *a, const void *b, void *blk)
{
	const blk64_t *bl = blk;
	blk64_t x = bl[*(const size_t *)a], y = bl[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

void ec_txn_sorted(struct ec_txn *t, size_t *n, blk64_t **blks, char ***data)
{
	size_t k = 0;

	if (!t->ordered && t->n) {
		for (size_t i = 0; i < t->n; i++)
			t->order[i] = i;
		qsort_r(t->order, t->n, sizeof(*t->order), by_block, t->blk);
		t->ordered = true;
	}
	for (size_t i = 0; i < t->n; i++) {
		size_t e = t->order[i];

		if (t->dead[e])
			continue;
		t->sorted_blk[k] = t->blk[e];
		t->sorted_data[k++] = t->data + e * t->bs;
	}
	*n = k;
	*blks = t->sorted_blk;
	*data = t->sorted_data;
}

void ec_txn_clear(struct ec_txn *t)
{
	t->n = t->live = 0;
	t->ordered = false;
	if (t->bucket)
		memset(t->bucket, 0, 2 * t->cap * sizeof(*t->bucket));
}
