/* server/errors.c: libext2fs error codes to errno, and what happens when the
 * filesystem turns out to be damaged (log, mark the superblock, errors=). */
#include "ctx.h"
#include "fsopen.h"
#include "log.h"
#include "notify.h"

#include <errno.h>
#include <string.h>

static void fs_error(struct ec_ctx *c, ext2_ino_t ino, const char *what, const char *why)
{
	struct ext2_super_block *sb = c->fs->super;
	time_t now = time(NULL);

	ec_log(EC_LOG_ERR, "ext4cell-server: %s: inode %u: %s: %s\n", c->devname, ino, what, why);
	if (!c->ro) {
		sb->s_state |= EXT2_ERROR_FS;
		sb->s_error_count++;
		sb->s_last_error_time = (__u32)now;
		sb->s_last_error_ino = ino;
		strncpy((char *)sb->s_last_error_func, what, sizeof(sb->s_last_error_func));
		if (!sb->s_first_error_time) {
			sb->s_first_error_time = (__u32)now;
			sb->s_first_error_ino = ino;
			strncpy((char *)sb->s_first_error_func, what, sizeof(sb->s_first_error_func));
		}
		ext2fs_mark_super_dirty(c->fs);
	}
	switch (c->errors) {
	case EC_ERRORS_RO:
		if (!c->ro) {
			ec_fs_sync(c);
			ec_log(EC_LOG_WARNING, "ext4cell-server: %s: errors=remount-ro: now read-only\n",
			       c->devname);
			ec_notify("STATUS=serving %s read-only after an error (errors=remount-ro)",
				  c->devname);
		}
		c->ro = true;
		break;
	case EC_ERRORS_PANIC:
		ec_log(EC_LOG_ERR, "ext4cell-server: %s: errors=panic: stopping\n", c->devname);
		c->exiting = true;
		break;
	default:
		break;
	}
}

int ec_corrupt(struct ec_ctx *c, ext2_ino_t ino, const char *why)
{
	fs_error(c, ino, "ext4cell", why);
	return EIO;
}

int ec_errno(struct ec_ctx *c, errcode_t err, ext2_ino_t ino, const char *what)
{
	switch (err) {
	case 0:
		return 0;
	case EXT2_ET_NO_MEMORY:
		return ENOMEM;
	case EXT2_ET_DIR_NO_SPACE:
	case EXT2_ET_DIR_NO_SPACE_FOR_CSUM:
	case EXT2_ET_BLOCK_ALLOC_FAIL:
	case EXT2_ET_INODE_ALLOC_FAIL:
	case EXT2_ET_EA_NO_SPACE:
	case EXT2_ET_INLINE_DATA_NO_SPACE:
		return ENOSPC;
	case EXT2_ET_RO_FILSYS:
		return EROFS;
	case EXT2_ET_FILE_TOO_BIG:
		return EFBIG;
	case EXT2_ET_EA_KEY_NOT_FOUND:
		return ENODATA;
	case EXT2_ET_DIR_EXISTS:
	case EXT2_ET_FILE_EXISTS:
		return EEXIST;
	case EXT2_ET_FILE_NOT_FOUND:
		return ENOENT;
	case EXT2_ET_UNIMPLEMENTED:
	case EXT2_ET_OP_NOT_SUPPORTED:
		return EOPNOTSUPP;
	case EXT2_ET_TOO_MANY_REFS:
		return EMLINK;
	case EXT2_ET_EA_BAD_NAME_LEN:
		return ERANGE;
	case EXT2_ET_INVALID_ARGUMENT:
		return EINVAL;
	default:
		break;
	}
	if (err > 0 && err < 4096 && err != EIO)
		return (int)err;
	fs_error(c, ino, what, error_message(err));
	return EIO;
}
