/* server/acl.h: POSIX ACL duties the FUSE protocol leaves to the server:
 * default ACL inheritance at creation, mode <-> ACL consistency. */
#ifndef EC_ACL_H
#define EC_ACL_H

#include "ctx.h"

#define EC_ACL_ACCESS "system.posix_acl_access"
#define EC_ACL_DEFAULT "system.posix_acl_default"

/* Without the ext_attr feature (or inline_data, which keeps data in an xattr)
 * no inode has extended attributes and libext2fs will not open them
 * (EXT2_ET_MISSING_EA_FEATURE): reads find none, as on kernel ext4, and
 * writes are refused with EOPNOTSUPP. */
static inline bool ec_fs_has_xattrs(const struct ec_ctx *c)
{
	return ext2fs_has_feature_xattr(c->fs->super) ||
	       ext2fs_has_feature_inline_data(c->fs->super);
}

struct ec_acl_inherit {
	void *dflt;		/* the parent's default ACL (xattr format) or NULL */
	size_t dflt_len;
	void *access;		/* the new inode's access ACL, NULL if the mode says it all */
	size_t access_len;
};

/* Before creating an inode of *mode in dir: applies the parent's default ACL
 * (or umask when there is none) to *mode and remembers what to store. */
int ec_acl_prepare(struct ec_ctx *c, ext2_ino_t dir, __u16 *mode, mode_t umask,
		   struct ec_acl_inherit *ai);
/* After creating ino: stores the inherited ACLs; frees ai either way. */
int ec_acl_apply(struct ec_ctx *c, ext2_ino_t ino, bool isdir, struct ec_acl_inherit *ai);
/* Frees ai when the creation failed before ec_acl_apply. */
void ec_acl_discard(struct ec_acl_inherit *ai);
/* chmod: keeps an existing access ACL in step with the new mode. */
int ec_acl_chmod(struct ec_ctx *c, ext2_ino_t ino, __u16 mode);
/* setxattr of an access ACL: the mode it implies, and whether the ACL says
 * more than the mode (if not, it need not be stored). EINVAL if malformed. */
int ec_acl_to_mode(const void *value, size_t len, __u16 *mode, bool *extended);

#endif
