/* server/dcache.h: the names of the directories the server has read whole,
 * kept in memory so that a lookup (found or not) reads no directory block
 * and removing a name reads only the block that holds it. libext2fs scans a
 * directory from its first block for each of these, which makes creating or
 * removing n files in one directory cost n^2 entry reads. The server is the
 * only writer of its filesystem: the cache stays true as long as every change
 * of a directory's entries goes through dirs.c, which keeps it current.
 * The table itself, without libext2fs (dirs.c reads directories into it). */
#ifndef EC_DCACHE_H
#define EC_DCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EC_DCACHE_MAX_NAMES	(1u << 20)	/* beyond: directories go uncached */
#define EC_DCACHE_NOBLK		UINT64_MAX	/* the name's block is not known */

struct ec_dname;

struct ec_dcache {
	struct ec_dname **bucket;
	size_t nbuckets, count;	/* count: names and directories held */
};

enum ec_dcache_answer { EC_DCACHE_UNKNOWN, EC_DCACHE_ABSENT, EC_DCACHE_FOUND };

/* Is name in dir? FOUND fills ino and lblk (the directory block that holds
 * the entry, or EC_DCACHE_NOBLK); UNKNOWN: dir is not cached. */
enum ec_dcache_answer ec_dcache_find(const struct ec_dcache *t, uint32_t dir, const char *name,
				     size_t len, uint32_t *ino, uint64_t *lblk);
bool ec_dcache_has_dir(const struct ec_dcache *t, uint32_t dir);

/* Starts caching dir with no names (the caller adds every name it holds,
 * or forgets it on failure); a full table is emptied first. 0 or ENOMEM. */
int ec_dcache_start(struct ec_dcache *t, uint32_t dir);
/* Adds a name of a cached dir (nothing for a dir that is not cached); on
 * ENOMEM or ENOSPC dir is forgotten, so it never answers without the name. */
int ec_dcache_add(struct ec_dcache *t, uint32_t dir, const char *name, size_t len, uint32_t ino,
		  uint64_t lblk);
/* The name now refers to ino (rename over it). */
void ec_dcache_retarget(struct ec_dcache *t, uint32_t dir, const char *name, size_t len,
			uint32_t ino);
void ec_dcache_remove(struct ec_dcache *t, uint32_t dir, const char *name, size_t len);
/* Drops dir and its names (the directory is gone or changed unseen). */
void ec_dcache_forget(struct ec_dcache *t, uint32_t dir);
void ec_dcache_free(struct ec_dcache *t);

#endif
