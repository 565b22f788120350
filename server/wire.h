/* server/wire.h: the server's own FUSE request loop (wire.c) and the types
 * and replies the handlers use instead of libfuse's. Below this layer no
 * fuse_ type remains: a handler gets a struct ec_req and plain arguments and
 * answers once with one of the ec_reply_* functions. */
#ifndef EC_WIRE_H
#define EC_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

struct ec_ctx;

/* One request: who asks (for new inodes' owners and the umask) and the id
 * its reply carries. */
struct ec_req {
	struct ec_ctx *c;
	uint64_t unique;
	uint32_t uid, gid, pid;
	uint32_t umask;		/* create, mknod, mkdir (the kernel left it to us) */
};

/* What LOOKUP, MKNOD, MKDIR, SYMLINK, LINK, CREATE and READDIRPLUS return. */
struct ec_entry {
	uint64_t ino, generation;
	struct stat attr;
	uint32_t attr_flags;	/* fuse_attr.flags: ec_attr_flags() */
	double attr_timeout, entry_timeout;
};

/* An open file: OPEN and CREATE fill it, the other file requests get it. */
struct ec_file {
	uint64_t fh;
	uint32_t flags;		/* open(2) flags */
	bool keep_cache, direct_io;
	/* HANDLE_KILLPRIV_V2: a WRITE, or an OPEN with O_TRUNC, by a caller
	 * without CAP_FSETID drops the setuid/setgid bits (ec_kill_suidgid) */
	bool kill_suidgid;
};

/* SETATTR's "what to set" bits: the kernel's FATTR_* values. */
enum {
	EC_SET_ATTR_MODE = 1 << 0,
	EC_SET_ATTR_UID = 1 << 1,
	EC_SET_ATTR_GID = 1 << 2,
	EC_SET_ATTR_SIZE = 1 << 3,
	EC_SET_ATTR_ATIME = 1 << 4,
	EC_SET_ATTR_MTIME = 1 << 5,
	EC_SET_ATTR_ATIME_NOW = 1 << 7,
	EC_SET_ATTR_MTIME_NOW = 1 << 8,
	EC_SET_ATTR_CTIME = 1 << 10,
	EC_SET_ATTR_KILL_SUIDGID = 1 << 11,	/* drop setuid/setgid (ec_kill_suidgid) */
};

#define EC_ROOT_ID 1	/* the root's node id in FUSE */

/* Serves c->fuse_fd until the filesystem is unmounted, c->exiting is set or
 * ec_wire_stop() was called (0), or reading fails (-1, logged). With -o debug
 * every request is logged; at the end, the counts of requests served. */
int ec_wire_loop(struct ec_ctx *c);
/* Async-signal-safe: the loop stops after the request it is serving. */
/* Journaled writes: a SIGALRM every `seconds` asks the request loop to
 * commit; set up before the sandbox (setitimer is not in it). 0 or -1. */
int ec_wire_commit_timer(unsigned seconds);
void ec_wire_stop(void);

/* Replies; each request gets exactly one (FORGET gets ec_reply_none). */
int ec_reply_err(struct ec_req *r, int err);
void ec_reply_none(struct ec_req *r);
int ec_reply_entry(struct ec_req *r, const struct ec_entry *e);
int ec_reply_create(struct ec_req *r, const struct ec_entry *e, const struct ec_file *f);
int ec_reply_attr(struct ec_req *r, const struct stat *st, uint32_t flags, double timeout);
int ec_reply_open(struct ec_req *r, const struct ec_file *f);
int ec_reply_buf(struct ec_req *r, const void *buf, size_t size);
int ec_reply_readlink(struct ec_req *r, const char *target);
int ec_reply_write(struct ec_req *r, size_t count);
int ec_reply_statfs(struct ec_req *r, const struct statvfs *st);
int ec_reply_xattr(struct ec_req *r, size_t size);
int ec_reply_lseek(struct ec_req *r, uint64_t off);
/* Before the reply to r: tells the kernel that the attributes of node
 * changed behind its back (FUSE_NOTIFY_INVAL_INODE, attributes only), as
 * when the server dropped setuid at a write. Failure is only logged. */
void ec_notify_attr_changed(struct ec_req *r, uint64_t node);

/* Directory entries for READDIR and READDIRPLUS replies: the size the entry
 * takes; it is written into buf only when that fits in bufsize. */
size_t ec_add_direntry(struct ec_req *r, char *buf, size_t bufsize, const char *name,
		       const struct stat *st, uint64_t off);
size_t ec_add_direntry_plus(struct ec_req *r, char *buf, size_t bufsize, const char *name,
			    const struct ec_entry *e, uint64_t off);

#endif
