/* server/ctx.h: the state of one mounted filesystem, shared by the request
 * handlers, and the helpers every handler uses (inode access, errors, times).
 * The server is single-threaded: one request at a time touches this state. */
#ifndef EC_CTX_H
#define EC_CTX_H

#include <ext2fs/ext2fs.h>
#include <stdbool.h>
#include <time.h>

#include "dcache.h"
#include "freed.h"
#include "nodes.h"
#include "options.h"
#include "wire.h"

struct ec_ctx {
	ext2_filsys fs;
	struct ec_options opt;
	const char *devname;	/* device or image, for messages */
	bool ro;		/* effective read-only (mount or errors=remount-ro) */
	enum ec_errors errors;	/* effective errors= behaviour */
	struct ec_nodes nodes;	/* kernel lookup counts */
	struct ec_dcache dcache; /* names of directories read whole (dirs.c) */
	ext2fs_block_bitmap zone; /* metadata blocks (zone.c) */
	int fuse_fd;		/* the FUSE connection (wire.c) */
	int dev_fd;		/* the device or image */
	unsigned int dio_align;	/* O_DIRECT on dev_fd: its transfer unit, else 0 */
	bool initialized;	/* FUSE_INIT answered */
	bool exiting;		/* stop serving (DESTROY, errors=panic, a signal) */
	bool iomap_allowed;	/* the connection was marked for iomap (helper) */
	bool iomap;		/* iomap mode negotiated (ops_iomap.c) */
	uint32_t dev_id;	/* the device's id with the kernel, iomap mode */
	bool unsynced;		/* changed since the device was last synced */
	bool journaled;		/* writes go through the journal (fdio.h) */
	struct ec_freed freed;	/* freed since the last commit (journaled) */
};

/* Inode numbers: FUSE's root is 1, ext2's is 2 (ext2 inode 1 is never served). */
static inline ext2_ino_t ec_ino(uint64_t ino)
{
	return ino == EC_ROOT_ID ? EXT2_ROOT_INO : (ext2_ino_t)ino;
}

static inline uint64_t ec_fuse_ino(ext2_ino_t ino)
{
	return ino == EXT2_ROOT_INO ? EC_ROOT_ID : ino;
}

static inline struct ec_ctx *ec_req_ctx(struct ec_req *req)
{
	return req->c;
}

/* errors.c */
/* Maps a libext2fs error to an errno; anything that means a damaged
 * filesystem is logged (naming ino and what), marks the superblock with errors and
 * applies errors=. */
int ec_errno(struct ec_ctx *c, errcode_t err, ext2_ino_t ino, const char *what);
/* Reports a corruption we detected ourselves; returns EIO. */
int ec_corrupt(struct ec_ctx *c, ext2_ino_t ino, const char *why);

/* inode.c */
typedef struct ext2_inode_large ec_inode;
/* True when ino may appear in a directory entry of this filesystem. */
bool ec_ino_valid(struct ec_ctx *c, ext2_ino_t ino);
/* Reads and validates an inode; returns 0 or an errno. */
int ec_read_inode(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in);
int ec_write_inode(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in);
/* Writes a brand-new inode, zeroing the rest of its on-disk slot. */
int ec_write_new_inode(struct ec_ctx *c, ext2_ino_t ino, ec_inode *in);
void ec_inode_stat(struct ec_ctx *c, ext2_ino_t ino, const ec_inode *in, struct stat *st);
enum ec_time { EC_ATIME, EC_MTIME, EC_CTIME, EC_CRTIME };
void ec_set_time(ec_inode *in, enum ec_time which, struct timespec ts);
struct timespec ec_now(void);
/* Sets mtime and ctime (dirs after an entry change) or ctime only. */
int ec_touch(struct ec_ctx *c, ext2_ino_t ino, bool mtime);
/* ec_touch with mtime, and ec_kill_suidgid first when kill_suidgid is set;
 * *killed says whether that changed the mode. */
int ec_touch_modified(struct ec_ctx *c, ext2_ino_t ino, bool kill_suidgid, bool *killed);
/* What the kernel's VFS does at a write by a caller without CAP_FSETID:
 * drop setuid, and setgid when the group may execute (else it marks
 * mandatory locking, which is kept). Whether the mode changed. */
bool ec_kill_suidgid(ec_inode *in);
/* Reads an inode and fills a FUSE entry, taking a kernel lookup reference. */
int ec_make_entry(struct ec_ctx *c, ext2_ino_t ino, struct ec_entry *e);
uint64_t ec_isize(const ec_inode *in);
/* Frees an inode whose link count is 0 and that the kernel no longer knows. */
int ec_maybe_free(struct ec_ctx *c, ext2_ino_t ino);
double ec_attr_timeout(void);

/* Owner of a newly created inode: caller, or the parent's group when setgid. */
void ec_init_owner(struct ec_req *req, const ec_inode *dir, ec_inode *in);

#define EC_CHECK_RW(c, req)                          \
	do {                                         \
		if ((c)->ro) {                       \
			ec_reply_err((req), EROFS); \
			return;                      \
		}                                    \
	} while (0)

#endif
