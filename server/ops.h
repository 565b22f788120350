/* server/ops.h: the FUSE low-level handlers and the directory and file-data
 * helpers they share. */
#ifndef EC_OPS_H
#define EC_OPS_H

#include "ctx.h"

/* dirs.c */
/* Looks name up in dir; ENOENT when absent, ENOTDIR, ENAMETOOLONG, EIO. */
int ec_dir_lookup(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t *ino);
/* Adds an entry (growing the directory when full). */
int ec_dir_link(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t ino, __u16 mode);
/* Tells the name cache that name now refers to ino in dir (lblk: the block
 * that holds it, or EC_DCACHE_NOBLK), after libext2fs added it. */
void ec_dir_added(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t ino,
		  uint64_t lblk);
/* Points the existing entry name at ino (rename over, exchange, ".."). */
int ec_dir_retarget(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t ino, __u16 mode);
int ec_dir_unlink(struct ec_ctx *c, ext2_ino_t dir, const char *name);
/* Removes the entry of a non-directory in one pass; returns its inode. */
int ec_dir_remove_file(struct ec_ctx *c, ext2_ino_t dir, const char *name, ext2_ino_t *ino,
		       ec_inode *in);
/* 0 when dir holds only "." and "..", ENOTEMPTY otherwise. */
int ec_dir_check_empty(struct ec_ctx *c, ext2_ino_t dir);
/* Link-count changes of a directory that gains or loses a subdirectory. */
int ec_dir_nlink(struct ec_ctx *c, ext2_ino_t dir, int delta);

/* data.c */
int ec_read_data(struct ec_ctx *c, ext2_ino_t ino, void *buf, uint64_t len, uint64_t off,
		 uint64_t *got);
int ec_write_data(struct ec_ctx *c, ext2_ino_t ino, const void *buf, uint64_t len,
		  uint64_t off);
int ec_truncate(struct ec_ctx *c, ext2_ino_t ino, uint64_t size);

/* handlers: each answers its request once (wire.h) */
void ec_op_lookup(struct ec_req *req, uint64_t parent, const char *name);
void ec_op_forget(struct ec_req *req, uint64_t ino, uint64_t nlookup);
void ec_op_getattr(struct ec_req *req, uint64_t ino);
void ec_op_setattr(struct ec_req *req, uint64_t ino, struct stat *attr, int to_set,
		   struct ec_file *fi);
void ec_op_readlink(struct ec_req *req, uint64_t ino);
void ec_op_statfs(struct ec_req *req, uint64_t ino);
void ec_op_mknod(struct ec_req *req, uint64_t parent, const char *name, mode_t mode, dev_t rdev);
void ec_op_mkdir(struct ec_req *req, uint64_t parent, const char *name, mode_t mode);
void ec_op_symlink(struct ec_req *req, const char *link, uint64_t parent, const char *name);
void ec_op_create(struct ec_req *req, uint64_t parent, const char *name, mode_t mode,
		  struct ec_file *fi);
void ec_op_link(struct ec_req *req, uint64_t ino, uint64_t newparent, const char *newname);
void ec_op_unlink(struct ec_req *req, uint64_t parent, const char *name);
void ec_op_rmdir(struct ec_req *req, uint64_t parent, const char *name);
void ec_op_rename(struct ec_req *req, uint64_t parent, const char *name, uint64_t newparent,
		  const char *newname, unsigned int flags);
void ec_op_readdir(struct ec_req *req, uint64_t ino, size_t size, off_t off,
		   struct ec_file *fi);
void ec_op_readdirplus(struct ec_req *req, uint64_t ino, size_t size, off_t off,
		       struct ec_file *fi);
void ec_op_open(struct ec_req *req, uint64_t ino, struct ec_file *fi);
void ec_op_read(struct ec_req *req, uint64_t ino, size_t size, off_t off, struct ec_file *fi);
void ec_op_write(struct ec_req *req, uint64_t ino, const char *buf, size_t size, off_t off,
		 struct ec_file *fi);
void ec_op_flush(struct ec_req *req, uint64_t ino, struct ec_file *fi);
void ec_op_release(struct ec_req *req, uint64_t ino, struct ec_file *fi);
void ec_op_fsync(struct ec_req *req, uint64_t ino, int datasync, struct ec_file *fi);
void ec_op_fallocate(struct ec_req *req, uint64_t ino, int mode, off_t offset, off_t length,
		     struct ec_file *fi);
void ec_op_lseek(struct ec_req *req, uint64_t ino, off_t off, int whence, struct ec_file *fi);
void ec_op_setxattr(struct ec_req *req, uint64_t ino, const char *name, const char *value,
		    size_t size, int flags);
void ec_op_getxattr(struct ec_req *req, uint64_t ino, const char *name, size_t size);
void ec_op_listxattr(struct ec_req *req, uint64_t ino, size_t size);
void ec_op_removexattr(struct ec_req *req, uint64_t ino, const char *name);
/* FUSE_DESTROY: everything on the device before umount returns */
void ec_op_destroy(struct ec_req *req);

/* ops_iomap.c: iomap mode */
/* At FUSE_INIT: asks for iomap (in *want, at protocol *minor) when the kernel
 * offers it and the mount may use it; sets c->iomap. */
void ec_iomap_init(struct ec_ctx *c, uint64_t offered, uint64_t *want, uint32_t *minor);
/* After FUSE_INIT: registers the device; -1 (logged) when the kernel refuses. */
int ec_iomap_start(struct ec_ctx *c);
/* Does the kernel move this file's data itself (iomap mode, a file we map)? */
bool ec_iomap_file(struct ec_ctx *c, const ec_inode *in);
/* fuse_attr.flags for an attribute reply about in: iomap for the files it
 * can map. */
uint32_t ec_attr_flags(struct ec_ctx *c, const ec_inode *in);
/* Answers FUSE_IOMAP_BEGIN, END and IOEND (payload p, n bytes); false for
 * any other opcode. */
bool ec_iomap_dispatch(struct ec_req *req, uint32_t op, uint64_t node, const void *p, size_t n);

#endif
