/* tests/images/mkbad.c: crafted-image generator. Damages one structure of an
 * ext4 image prepared by tests/host/hostile.suite (files /file, /dir/x and a
 * slow symlink /link), writing through libext2fs so that checksums stay valid
 * and only our own validation can catch the damage.
 * usage: mkbad CASE IMAGE   (mkbad --list prints the cases) */
#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <string.h>

static ext2_filsys fs;

static int fail(const char *what, errcode_t err)
{
	fprintf(stderr, "mkbad: %s: %s\n", what, error_message(err));
	return 1;
}

static int with_inode(const char *path, int (*fn)(struct ext2_inode_large *in))
{
	struct ext2_inode_large in;
	ext2_ino_t ino;
	errcode_t err = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);

	if (err)
		return fail(path, err);
	memset(&in, 0, sizeof(in));
	err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in));
	if (err)
		return fail("read inode", err);
	if (fn(&in))
		return 1;
	err = ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in));
	return err ? fail("write inode", err) : 0;
}

static int extent_magic(struct ext2_inode_large *in)
{
	in->i_block[0] = 0;
	return 0;
}

static int extent_beyond(struct ext2_inode_large *in)
{
	in->i_block[5] = (__u32)ext2fs_blocks_count(fs->super) + 1000; /* ee_start_lo */
	return 0;
}

static int extent_depth(struct ext2_inode_large *in)
{
	in->i_block[1] = (in->i_block[1] & 0xffff) | (0x7fffu << 16); /* eh_depth */
	return 0;
}

static int extent_metadata(struct ext2_inode_large *in)
{
	in->i_block[4] &= 0xffff; /* ee_len stays, ee_start_hi = 0 */
	in->i_block[5] = (__u32)ext2fs_inode_table_loc(fs, 0);
	return 0;
}

static int xattr_block(struct ext2_inode_large *in)
{
	in->i_file_acl = (__u32)ext2fs_blocks_count(fs->super) + 5;
	return 0;
}

static int huge_size(struct ext2_inode_large *in)
{
	in->i_size = 1 << 20;
	return 0;
}

static int extra_isize(struct ext2_inode_large *in)
{
	in->i_extra_isize = 2000;
	return 0;
}

static int bad_mode(struct ext2_inode_large *in)
{
	in->i_mode = 0170644;
	return 0;
}

/* Rewrites the first block of /dir with fn applied to the entry named x. */
static int with_dir_block(int (*fn)(struct ext2_dir_entry *d, char *block))
{
	char block[EXT2_MAX_BLOCK_SIZE];
	unsigned int off = 0, rec_len;
	ext2_ino_t ino;
	blk64_t blk;
	errcode_t err = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "/dir", &ino);

	if (!err)
		err = ext2fs_bmap2(fs, ino, NULL, NULL, 0, 0, NULL, &blk);
	if (!err)
		err = ext2fs_read_dir_block4(fs, blk, block, 0, ino);
	if (err)
		return fail("/dir block", err);
	while (off < fs->blocksize) {
		struct ext2_dir_entry *d = (struct ext2_dir_entry *)(block + off);
		if (ext2fs_get_rec_len(fs, d, &rec_len) || rec_len < 8)
			break;
		if (ext2fs_dirent_name_len(d) == 1 && d->name[0] == 'x') {
			if (fn(d, block))
				return 1;
			err = ext2fs_write_dir_block4(fs, blk, block, 0, ino);
			return err ? fail("write dir block", err) : 0;
		}
		off += rec_len;
	}
	fprintf(stderr, "mkbad: /dir has no entry x\n");
	return 1;
}

static int dirent_ino(struct ext2_dir_entry *d, char *block)
{
	(void)block;
	d->inode = fs->super->s_inodes_count + 5;
	return 0;
}

static int dirent_reclen(struct ext2_dir_entry *d, char *block)
{
	(void)block;
	d->rec_len = 6;
	return 0;
}

static int gdt_inode_table(void)
{
	ext2fs_inode_table_loc_set(fs, 0, ext2fs_blocks_count(fs->super) + 10);
	ext2fs_group_desc_csum_set(fs, 0);
	ext2fs_mark_super_dirty(fs);
	return 0;
}

static int unknown_incompat(void)
{
	fs->super->s_feature_incompat |= 0x80000000u;
	ext2fs_mark_super_dirty(fs);
	return 0;
}

static int run(const char *name)
{
	if (!strcmp(name, "extent-magic")) return with_inode("/file", extent_magic);
	if (!strcmp(name, "extent-beyond")) return with_inode("/file", extent_beyond);
	if (!strcmp(name, "extent-depth")) return with_inode("/file", extent_depth);
	if (!strcmp(name, "xattr-block")) return with_inode("/file", xattr_block);
	if (!strcmp(name, "extent-metadata")) return with_inode("/file", extent_metadata);
	if (!strcmp(name, "symlink-size")) return with_inode("/link", huge_size);
	if (!strcmp(name, "extra-isize")) return with_inode("/file", extra_isize);
	if (!strcmp(name, "bad-mode")) return with_inode("/file", bad_mode);
	if (!strcmp(name, "dirent-ino")) return with_dir_block(dirent_ino);
	if (!strcmp(name, "dirent-reclen")) return with_dir_block(dirent_reclen);
	if (!strcmp(name, "gdt-inode-table")) return gdt_inode_table();
	if (!strcmp(name, "unknown-incompat")) return unknown_incompat();
	fprintf(stderr, "mkbad: unknown case %s\n", name);
	return 2;
}

int main(int argc, char **argv)
{
	errcode_t err;
	int rc;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		puts("extent-magic extent-beyond extent-depth extent-metadata xattr-block symlink-size extra-isize bad-mode dirent-ino "
		     "dirent-reclen gdt-inode-table unknown-incompat");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: mkbad CASE IMAGE | mkbad --list\n");
		return 2;
	}
	err = ext2fs_open(argv[2], EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (err)
		return fail(argv[2], err);
	rc = run(argv[1]);
	if (!rc && !strcmp(argv[1], "dirent-reclen"))
		fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	err = ext2fs_close_free(&fs);
	return rc ? rc : err ? fail("close", err) : 0;
}
