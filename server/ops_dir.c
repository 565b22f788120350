/* server/ops_dir.c: FUSE readdir and readdirplus. Each entry's cookie is its
 * byte position in the directory (logical block * block size + offset) plus
 * one, which stays valid while entries are removed during a listing. Inline
 * directories are tiny and use the entry ordinal instead. */
#include "ops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct listing {
	struct ec_ctx *c;
	struct ec_req *req;
	ext2_ino_t dir;
	bool plus, full;
	char *out;
	size_t size, used;
	uint64_t start;		/* first position to emit */
	uint64_t ordinal;	/* inline directories */
	char *block;
	int err;
};

static mode_t ft_mode(int ft)
{
	static const mode_t m[] = {
		[EXT2_FT_REG_FILE] = S_IFREG, [EXT2_FT_DIR] = S_IFDIR, [EXT2_FT_CHRDEV] = S_IFCHR,
		[EXT2_FT_BLKDEV] = S_IFBLK, [EXT2_FT_FIFO] = S_IFIFO, [EXT2_FT_SOCK] = S_IFSOCK,
		[EXT2_FT_SYMLINK] = S_IFLNK,
	};
	return ft > 0 && ft < (int)(sizeof(m) / sizeof(m[0])) ? m[ft] : 0;
}

/* Adds one entry at position pos; returns false when the reply buffer is full. */
static bool emit(struct listing *l, const struct ext2_dir_entry *d, uint64_t pos)
{
	int len = ext2fs_dirent_name_len(d);
	char name[EXT2_NAME_LEN + 1];
	struct ec_entry e;
	size_t need;
	bool dot;

	if (pos < l->start)
		return true;
	if (!ec_ino_valid(l->c, d->inode)) {
		l->err = ec_corrupt(l->c, l->dir, "directory entry with an invalid inode number");
		return false;
	}
	memcpy(name, d->name, (size_t)len);
	name[len] = 0;
	memset(&e, 0, sizeof(e));
	e.attr.st_ino = d->inode;
	e.attr.st_mode = ft_mode(ext2fs_dirent_file_type(d));
	need = l->plus ? ec_add_direntry_plus(l->req, NULL, 0, name, NULL, 0)
		       : ec_add_direntry(l->req, NULL, 0, name, NULL, 0);
	if (need > l->size - l->used) {
		l->full = true;
		return false;
	}
	dot = !strcmp(name, ".") || !strcmp(name, "..");
	if (l->plus && !dot && (l->err = ec_make_entry(l->c, d->inode, &e)))
		return false;
	if (l->plus)
		ec_add_direntry_plus(l->req, l->out + l->used, need, name, &e, (off_t)pos + 1);
	else
		ec_add_direntry(l->req, l->out + l->used, need, name, &e.attr, (off_t)pos + 1);
	l->used += need;
	return true;
}

/* Walks one directory block, checking every record against the block bounds. */
static int walk_block(struct listing *l, blk64_t lblk)
{
	unsigned int bs = l->c->fs->blocksize, off = 0, rec_len;

	while (off + 8 <= bs) {
		struct ext2_dir_entry *d = (struct ext2_dir_entry *)(l->block + off);
		if (ext2fs_get_rec_len(l->c->fs, d, &rec_len) || rec_len < 8 || rec_len % 4 ||
		    rec_len > bs - off || (unsigned int)ext2fs_dirent_name_len(d) + 8 > rec_len) {
			l->err = ec_corrupt(l->c, l->dir, "bad directory entry length");
			return BLOCK_ABORT;
		}
		if (d->inode && !emit(l, d, lblk * bs + off))
			return BLOCK_ABORT;
		off += rec_len;
	}
	return 0;
}

static int block_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		    int ref_offset, void *priv)
{
	struct listing *l = priv;
	errcode_t err;

	(void)ref_blk, (void)ref_offset;
	if (blockcnt < 0 || (uint64_t)(blockcnt + 1) * fs->blocksize <= l->start)
		return 0;
	err = ext2fs_read_dir_block4(fs, *blocknr, l->block, 0, l->dir);
	if (err) {
		l->err = ec_errno(l->c, err, l->dir, "read_dir_block");
		return BLOCK_ABORT;
	}
	return walk_block(l, (blk64_t)blockcnt);
}

static int inline_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset,
		     int blocksize, char *buf, void *priv)
{
	struct listing *l = priv;

	(void)dir, (void)entry, (void)offset, (void)blocksize, (void)buf;
	return emit(l, d, l->ordinal++) ? 0 : DIRENT_ABORT;
}

static void list(struct ec_req *req, uint64_t ino, size_t size, off_t off, bool plus)
{
	struct ec_ctx *c = ec_req_ctx(req);
	struct listing l = { .c = c, .req = req, .dir = ec_ino(ino), .plus = plus,
			     .size = size, .start = off > 0 ? (uint64_t)off : 0 };
	ec_inode in;
	errcode_t err = 0;
	int rc = ec_read_inode(c, l.dir, &in);

	if (!rc && !LINUX_S_ISDIR(in.i_mode))
		rc = ENOTDIR;
	l.out = malloc(size);
	l.block = malloc(c->fs->blocksize);
	if (!rc && (!l.out || !l.block))
		rc = ENOMEM;
	if (!rc && (in.i_flags & EXT4_INLINE_DATA_FL))
		err = ext2fs_dir_iterate2(c->fs, l.dir, 0, NULL, inline_cb, &l);
	else if (!rc)
		err = ext2fs_block_iterate3(c->fs, l.dir, BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
					    NULL, block_cb, &l);
	if (!rc)
		rc = err ? ec_errno(c, err, l.dir, "readdir") : l.err;
	/* an entry that does not fit ends the batch; an error after some entries
	 * is reported by the next call, which starts at the bad entry */
	if (rc && !l.used)
		ec_reply_err(req, rc);
	else
		ec_reply_buf(req, l.out, l.used);
	free(l.out);
	free(l.block);
}

void ec_op_readdir(struct ec_req *req, uint64_t ino, size_t size, off_t off,
		   struct ec_file *fi)
{
	(void)fi;
	list(req, ino, size, off, false);
}

void ec_op_readdirplus(struct ec_req *req, uint64_t ino, size_t size, off_t off,
		       struct ec_file *fi)
{
	(void)fi;
	list(req, ino, size, off, true);
}
