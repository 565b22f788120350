/* server/nodes.c: chained hash table of per-inode kernel lookup counts. */
#include "nodes.h"

#include <errno.h>
#include <stdlib.h>

struct ec_node {
	uint32_t ino;
	uint64_t nlookup;
	struct ec_node *next;
};

static size_t slot(const struct ec_nodes *t, uint32_t ino)
{
	return (size_t)(ino * 2654435761u) & (t->nbuckets - 1);
}

static struct ec_node **find(const struct ec_nodes *t, uint32_t ino)
{
	struct ec_node **p;

	if (!t->nbuckets)
		return NULL;
	for (p = &t->bucket[slot(t, ino)]; *p; p = &(*p)->next)
		if ((*p)->ino == ino)
			return p;
	return NULL;
}

static int grow(struct ec_nodes *t)
{
	size_t n = t->nbuckets ? t->nbuckets * 2 : 256, i;
	struct ec_node **nb = calloc(n, sizeof(*nb));
	struct ec_nodes nt = { nb, n, t->count };

	if (!nb)
		return ENOMEM;
	for (i = 0; i < t->nbuckets; i++) {
		struct ec_node *e = t->bucket[i], *next;
		for (; e; e = next) {
			next = e->next;
			e->next = nb[slot(&nt, e->ino)];
			nb[slot(&nt, e->ino)] = e;
		}
	}
	free(t->bucket);
	*t = nt;
	return 0;
}

int ec_nodes_ref(struct ec_nodes *t, uint32_t ino)
{
	struct ec_node **p = find(t, ino), *e;

	if (p) {
		(*p)->nlookup++;
		return 0;
	}
	if (t->count >= t->nbuckets && grow(t))
		return ENOMEM;
	e = malloc(sizeof(*e));
	if (!e)
		return ENOMEM;
	e->ino = ino;
	e->nlookup = 1;
	e->next = t->bucket[slot(t, ino)];
	t->bucket[slot(t, ino)] = e;
	t->count++;
	return 0;
}

uint64_t ec_nodes_unref(struct ec_nodes *t, uint32_t ino, uint64_t n)
{
	struct ec_node **p = find(t, ino), *e;

	if (!p)
		return 0;
	e = *p;
	if (e->nlookup > n) {
		e->nlookup -= n;
		return e->nlookup;
	}
	*p = e->next;
	free(e);
	t->count--;
	return 0;
}

uint64_t ec_nodes_count(const struct ec_nodes *t, uint32_t ino)
{
	struct ec_node **p = find(t, ino);

	return p ? (*p)->nlookup : 0;
}

void ec_nodes_drain(struct ec_nodes *t, void (*fn)(uint32_t ino, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < t->nbuckets; i++) {
		struct ec_node *e = t->bucket[i], *next;
		t->bucket[i] = NULL;
		for (; e; e = next) {
			uint32_t ino = e->ino;
			next = e->next;
			free(e);
			t->count--;
			fn(ino, arg); /* the node is gone: fn sees a count of 0 */
		}
	}
	free(t->bucket);
	t->bucket = NULL;
	t->nbuckets = 0;
}
