/* server/dcache.c: the directory name cache (dcache.h): one hash table of
 * names keyed by (directory, name), plus one marker per cached directory
 * that heads a list of its names, so that a directory can be dropped
 * without visiting the whole table. */
#include "dcache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ec_dname {
	struct ec_dname *next;		/* hash chain */
	struct ec_dname *dprev, *dnext;	/* the directory's list (marker first) */
	uint64_t lblk;
	uint32_t dir, ino, hash;
	uint8_t len;			/* 0: the directory's marker */
	char name[];
};

static uint32_t hash_of(uint32_t dir, const char *name, size_t len)
{
	uint32_t h = 2166136261u ^ dir;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h ^ (h >> 15);
}

static struct ec_dname **chain(const struct ec_dcache *t, uint32_t hash)
{
	return &t->bucket[hash & (t->nbuckets - 1)];
}

static struct ec_dname *lookup(const struct ec_dcache *t, uint32_t dir, const char *name,
			       size_t len)
{
	uint32_t h = hash_of(dir, name, len);

	if (!t->nbuckets)
		return NULL;
	for (struct ec_dname *n = *chain(t, h); n; n = n->next)
		if (n->hash == h && n->dir == dir && n->len == len && !memcmp(n->name, name, len))
			return n;
	return NULL;
}

/* Doubles the table once it holds twice as many entries as buckets. */
static int grow(struct ec_dcache *t)
{
	size_t nb = t->nbuckets ? t->nbuckets * 2 : 1024;
	struct ec_dname **b, *n, *next;

	if (t->count < t->nbuckets * 2)
		return 0;
	b = calloc(nb, sizeof(*b));
	if (!b)
		return t->nbuckets ? 0 : ENOMEM;	/* longer chains, still right */
	for (size_t i = 0; i < t->nbuckets; i++)
		for (n = t->bucket[i]; n; n = next) {
			next = n->next;
			n->next = b[n->hash & (nb - 1)];
			b[n->hash & (nb - 1)] = n;
		}
	free(t->bucket);
	t->bucket = b;
	t->nbuckets = nb;
	return 0;
}

static struct ec_dname *insert(struct ec_dcache *t, uint32_t dir, const char *name, size_t len)
{
	struct ec_dname *n;

	if (t->count >= EC_DCACHE_MAX_NAMES)
		return NULL;
	if (grow(t) || !(n = calloc(1, sizeof(*n) + len)))
		return NULL;
	n->dir = dir;
	n->len = (uint8_t)len;
	n->hash = hash_of(dir, name, len);
	memcpy(n->name, name, len);
	n->next = *chain(t, n->hash);
	*chain(t, n->hash) = n;
	t->count++;
	return n;
}

/* Takes n out of its chain and its directory's list, and frees it. */
static void drop(struct ec_dcache *t, struct ec_dname *n)
{
	struct ec_dname **p = chain(t, n->hash);

	while (*p != n)
		p = &(*p)->next;
	*p = n->next;
	if (n->dprev)
		n->dprev->dnext = n->dnext;
	if (n->dnext)
		n->dnext->dprev = n->dprev;
	t->count--;
	free(n);
}

enum ec_dcache_answer ec_dcache_find(const struct ec_dcache *t, uint32_t dir, const char *name,
				     size_t len, uint32_t *ino, uint64_t *lblk)
{
	struct ec_dname *n;

	if (!len || len > 255 || !ec_dcache_has_dir(t, dir))
		return EC_DCACHE_UNKNOWN;
	n = lookup(t, dir, name, len);
	if (!n)
		return EC_DCACHE_ABSENT;
	*ino = n->ino;
	*lblk = n->lblk;
	return EC_DCACHE_FOUND;
}

bool ec_dcache_has_dir(const struct ec_dcache *t, uint32_t dir)
{
	return lookup(t, dir, "", 0) != NULL;
}

int ec_dcache_start(struct ec_dcache *t, uint32_t dir)
{
	ec_dcache_forget(t, dir);
	if (t->count >= EC_DCACHE_MAX_NAMES)
		ec_dcache_free(t);	/* full: room for the directories in use now */
	return insert(t, dir, "", 0) ? 0 : ENOMEM;
}

int ec_dcache_add(struct ec_dcache *t, uint32_t dir, const char *name, size_t len, uint32_t ino,
		  uint64_t lblk)
{
	struct ec_dname *m = lookup(t, dir, "", 0), *n;

	if (!m)
		return 0;
	if (!len || len > 255) {
		ec_dcache_forget(t, dir);
		return EINVAL;
	}
	n = lookup(t, dir, name, len);
	if (!n && !(n = insert(t, dir, name, len))) {
		int err = t->count >= EC_DCACHE_MAX_NAMES ? ENOSPC : ENOMEM;

		ec_dcache_forget(t, dir);
		return err;
	}
	if (!n->dprev) {	/* new: first on the directory's list */
		n->dprev = m;
		n->dnext = m->dnext;
		if (m->dnext)
			m->dnext->dprev = n;
		m->dnext = n;
	}
	n->ino = ino;
	n->lblk = lblk;
	return 0;
}

void ec_dcache_retarget(struct ec_dcache *t, uint32_t dir, const char *name, size_t len,
			uint32_t ino)
{
	struct ec_dname *n = len ? lookup(t, dir, name, len) : NULL;

	if (n)
		n->ino = ino;
}

void ec_dcache_remove(struct ec_dcache *t, uint32_t dir, const char *name, size_t len)
{
	struct ec_dname *n = len ? lookup(t, dir, name, len) : NULL;

	if (n)
		drop(t, n);
}

void ec_dcache_forget(struct ec_dcache *t, uint32_t dir)
{
	struct ec_dname *m = lookup(t, dir, "", 0);

	if (!m)
		return;
	while (m->dnext)
		drop(t, m->dnext);
	drop(t, m);
}

void ec_dcache_free(struct ec_dcache *t)
{
	struct ec_dname *n, *next;

	for (size_t i = 0; i < t->nbuckets; i++)
		for (n = t->bucket[i]; n; n = next) {
			next = n->next;
			free(n);
		}
	free(t->bucket);
	memset(t, 0, sizeof(*t));
}
