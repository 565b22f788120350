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

/* handlers */
void ec_op_init(void *userdata, struct fuse_conn_info *conn);
void ec_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void ec_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void ec_op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets);
void ec_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ec_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		   struct fuse_file_info *fi);
void ec_op_readlink(fuse_req_t req, fuse_ino_t ino);
void ec_op_statfs(fuse_req_t req, fuse_ino_t ino);
void ec_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void ec_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void ec_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);
void ec_op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		  struct fuse_file_info *fi);
void ec_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void ec_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void ec_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void ec_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		  const char *newname, unsigned int flags);
void ec_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi);
void ec_op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi);
void ec_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ec_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void ec_op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		 struct fuse_file_info *fi);
void ec_op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ec_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ec_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void ec_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
		     struct fuse_file_info *fi);
void ec_op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, struct fuse_file_info *fi);
void ec_op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
		    size_t size, int flags);
void ec_op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void ec_op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void ec_op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

#endif
