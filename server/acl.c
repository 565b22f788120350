/* server/acl.c: POSIX ACLs in the Linux xattr format (version 2 header, then
 * {u16 tag, u16 perm, u32 id} little-endian entries); libext2fs converts to
 * and from the on-disk format. Implements what the kernel's ext4 does in
 * posix_acl_create() and posix_acl_chmod(), which FUSE leaves to servers. */
#include "acl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { A_USER_OBJ = 1, A_USER = 2, A_GROUP_OBJ = 4, A_GROUP = 8, A_MASK = 0x10, A_OTHER = 0x20 };
#define ACL_HDR 4
#define ACL_ENTRY 8
#define ACL_VERSION 2

struct entry {
	__u16 tag, perm;
	__u32 id;
};

/* Validates an ACL; returns the entry count or -1. */
static int entries(const void *v, size_t len)
{
	__u32 version;

	if (len < ACL_HDR || (len - ACL_HDR) % ACL_ENTRY || len > ACL_HDR + 32 * 1024 * ACL_ENTRY)
		return -1;
	memcpy(&version, v, 4);
	return ext2fs_le32_to_cpu(version) == ACL_VERSION ? (int)((len - ACL_HDR) / ACL_ENTRY) : -1;
}

static struct entry get(const void *v, int i)
{
	const unsigned char *p = (const unsigned char *)v + ACL_HDR + (size_t)i * ACL_ENTRY;
	struct entry e;

	e.tag = (__u16)(p[0] | p[1] << 8);
	e.perm = (__u16)(p[2] | p[3] << 8);
	e.id = (__u32)p[4] | (__u32)p[5] << 8 | (__u32)p[6] << 16 | (__u32)p[7] << 24;
	return e;
}

static void set_perm(void *v, int i, __u16 perm)
{
	unsigned char *p = (unsigned char *)v + ACL_HDR + (size_t)i * ACL_ENTRY;

	p[2] = (unsigned char)(perm & 0xff);
	p[3] = (unsigned char)(perm >> 8);
}

/* Reads an xattr into a malloc'ed buffer; ENODATA when absent. */
static int get_xattr(struct ec_ctx *c, ext2_ino_t ino, const char *name, void **val, size_t *len)
{
	struct ext2_xattr_handle *h;
	void *v = NULL;
	errcode_t err;

	*val = NULL;
	if (!ec_fs_has_xattrs(c))
		return ENODATA;
	err = ext2fs_xattrs_open(c->fs, ino, &h);
	if (err)
		return ec_errno(c, err, ino, "xattrs_open");
	err = ext2fs_xattrs_read(h);
	if (!err)
		err = ext2fs_xattr_get(h, name, &v, len);
	ext2fs_xattrs_close(&h);
	if (err == EXT2_ET_EA_KEY_NOT_FOUND)
		return ENODATA;
	if (err)
		return ec_errno(c, err, ino, "xattr_get");
	*val = malloc(*len ? *len : 1);
	if (*val)
		memcpy(*val, v, *len);
	ext2fs_free_mem(&v);
	return *val ? 0 : ENOMEM;
}

static int set_xattr(struct ec_ctx *c, ext2_ino_t ino, const char *name, const void *val, size_t len)
{
	struct ext2_xattr_handle *h;
	errcode_t err, err2;

	if (!ec_fs_has_xattrs(c))
		return EOPNOTSUPP;
	err = ext2fs_xattrs_open(c->fs, ino, &h);
	if (err)
		return ec_errno(c, err, ino, "xattrs_open");
	err = ext2fs_xattrs_read(h);
	if (!err)
		err = ext2fs_xattr_set(h, name, val, len);
	err2 = ext2fs_xattrs_close(&h);
	return ec_errno(c, err ? err : err2, ino, "xattr_set");
}

/* posix_acl_create_masq: restricts the ACL by mode and mode by the ACL;
 * returns 1 when the ACL holds more than the mode can express. */
static int create_masq(void *acl, int n, __u16 *mode)
{
	int i, group = -1, mask = -1, extended = 0;
	__u16 m = *mode;

	for (i = 0; i < n; i++) {
		struct entry e = get(acl, i);
		switch (e.tag) {
		case A_USER_OBJ:
			e.perm &= (m >> 6) | ~7;
			m &= (e.perm << 6) | ~0700;
			set_perm(acl, i, e.perm);
			break;
		case A_USER:
		case A_GROUP:
			extended = 1;
			break;
		case A_GROUP_OBJ:
			group = i;
			break;
		case A_OTHER:
			e.perm &= m | ~7;
			m &= e.perm | ~07;
			set_perm(acl, i, e.perm);
			break;
		case A_MASK:
			mask = i;
			extended = 1;
			break;
		default:
			return -1;
		}
	}
	i = mask >= 0 ? mask : group;
	if (i < 0)
		return -1;
	set_perm(acl, i, get(acl, i).perm & ((m >> 3) | ~7));
	m &= (get(acl, i).perm << 3) | ~070;
	*mode = m;
	return extended;
}

int ec_acl_prepare(struct ec_ctx *c, ext2_ino_t dir, __u16 *mode, mode_t umask,
		   struct ec_acl_inherit *ai)
{
	__u16 m = *mode;
	int n, rc;

	memset(ai, 0, sizeof(*ai));
	rc = get_xattr(c, dir, EC_ACL_DEFAULT, &ai->dflt, &ai->dflt_len);
	if (rc == ENODATA) {
		*mode &= (__u16)~(umask & 0777);
		return 0;
	}
	if (rc)
		return rc;
	n = entries(ai->dflt, ai->dflt_len);
	ai->access = malloc(ai->dflt_len);
	if (n < 0 || !ai->access) {
		rc = n < 0 ? ec_corrupt(c, dir, "malformed default ACL") : ENOMEM;
		goto fail;
	}
	memcpy(ai->access, ai->dflt, ai->dflt_len);
	ai->access_len = ai->dflt_len;
	rc = create_masq(ai->access, n, &m);
	if (rc < 0) {
		rc = ec_corrupt(c, dir, "malformed default ACL");
		goto fail;
	}
	if (!rc) {
		free(ai->access);
		ai->access = NULL;
	}
	*mode = (__u16)((*mode & ~07777) | (m & 07777));
	return 0;
fail:
	ec_acl_discard(ai);
	return rc;
}

void ec_acl_discard(struct ec_acl_inherit *ai)
{
	free(ai->dflt);
	free(ai->access);
	memset(ai, 0, sizeof(*ai));
}

int ec_acl_apply(struct ec_ctx *c, ext2_ino_t ino, bool isdir, struct ec_acl_inherit *ai)
{
	int rc = 0;

	if (ai->access)
		rc = set_xattr(c, ino, EC_ACL_ACCESS, ai->access, ai->access_len);
	if (!rc && isdir && ai->dflt)
		rc = set_xattr(c, ino, EC_ACL_DEFAULT, ai->dflt, ai->dflt_len);
	ec_acl_discard(ai);
	return rc;
}

int ec_acl_chmod(struct ec_ctx *c, ext2_ino_t ino, __u16 mode)
{
	void *acl;
	size_t len;
	int i, n, mask = -1, group = -1;
	int rc = get_xattr(c, ino, EC_ACL_ACCESS, &acl, &len);

	if (rc == ENODATA)
		return 0;
	if (rc)
		return rc;
	n = entries(acl, len);
	for (i = 0; i < n; i++) {
		struct entry e = get(acl, i);
		if (e.tag == A_USER_OBJ)
			set_perm(acl, i, (mode >> 6) & 7);
		else if (e.tag == A_OTHER)
			set_perm(acl, i, mode & 7);
		else if (e.tag == A_MASK)
			mask = i;
		else if (e.tag == A_GROUP_OBJ)
			group = i;
	}
	if (n < 0 || (mask < 0 && group < 0))
		rc = ec_corrupt(c, ino, "malformed access ACL");
	else
		set_perm(acl, mask >= 0 ? mask : group, (mode >> 3) & 7);
	if (!rc)
		rc = set_xattr(c, ino, EC_ACL_ACCESS, acl, len);
	free(acl);
	return rc;
}

int ec_acl_to_mode(const void *value, size_t len, __u16 *mode, bool *extended)
{
	int n = entries(value, len), i, group = -1, mask = -1, user = -1, other = -1;

	*extended = false;
	for (i = 0; i < n; i++) {
		struct entry e = get(value, i);
		switch (e.tag) {
		case A_USER_OBJ: user = i; break;
		case A_GROUP_OBJ: group = i; break;
		case A_OTHER: other = i; break;
		case A_MASK: mask = i; *extended = true; break;
		case A_USER: case A_GROUP: *extended = true; break;
		default: return EINVAL;
		}
	}
	if (n < 0 || user < 0 || group < 0 || other < 0)
		return EINVAL;
	*mode = (__u16)((*mode & ~0777) | (get(value, user).perm & 7) << 6 |
			(get(value, mask >= 0 ? mask : group).perm & 7) << 3 | (get(value, other).perm & 7));
	return 0;
}
