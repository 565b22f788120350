/* server/nodes.h: the kernel's lookup count per inode (FUSE nlookup), so that
 * unlinked inodes are freed only once the kernel has forgotten them. */
#ifndef EC_NODES_H
#define EC_NODES_H

#include <stddef.h>
#include <stdint.h>

struct ec_node;

struct ec_nodes {
	struct ec_node **bucket;
	size_t nbuckets, count;
};

/* Adds one reference; returns 0 or ENOMEM. */
int ec_nodes_ref(struct ec_nodes *t, uint32_t ino);
/* Drops n references; returns the remaining count (0: forgotten). */
uint64_t ec_nodes_unref(struct ec_nodes *t, uint32_t ino, uint64_t n);
uint64_t ec_nodes_count(const struct ec_nodes *t, uint32_t ino);
/* Calls fn for each known inode, then empties the table. */
void ec_nodes_drain(struct ec_nodes *t, void (*fn)(uint32_t ino, void *arg), void *arg);

#endif
