/* tests/images/craft.c: the security suite's crafted-image generator.
 * Damages one structure of a copy of a base image (tests/images/bases.sh
 * builds them: /file, a fragmented /sparse whose extent tree has a leaf
 * block, an indexed directory /htree, a small /dir, fast and slow symlinks,
 * /xfile with xattrs in the inode and in a block, a journal). FAMILY says
 * which structure, SEED which object, which field and which value: the same
 * pair always gives the same image. Checksums are written again after the
 * damage where libext2fs can (except the family "bytes"), so that only
 * ext4cell's own validation stands between the damage and the code using it.
 * usage: craft FAMILY SEED BASE OUT    craft --list   (exit 0: written,
 * 2: usage, 1: the base could not be read or the copy written) */
#include <errno.h>
#include <ext2fs/ext2fs.h>
#include <ext2fs/ext3_extents.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "craft.h"

static uint64_t rng_state;
ext2_filsys fs;

/* splitmix64: a different stream for every (family, seed) */
uint64_t next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned below(unsigned n)
{
	return n ? (unsigned)(next() % n) : 0;
}

int fail(const char *what, errcode_t err)
{
	fprintf(stderr, "craft: %s: %s\n", what, err ? error_message(err) : "not found");
	return 1;
}

/* A value for a field of width bytes that held orig: the boundaries and
 * neighbours that parsers get wrong, or noise. */
uint64_t pick(uint64_t orig, int width)
{
	uint64_t max = width == 8 ? ~0ULL : (1ULL << (8 * width)) - 1, v;

	switch (below(10)) {
	case 0: v = 0; break;
	case 1: v = 1; break;
	case 2: v = max; break;
	case 3: v = max >> 1; break;
	case 4: v = (max >> 1) + 1; break;
	case 5: v = orig + 1; break;
	case 6: v = orig - 1; break;
	case 7: v = orig * 2 + 1; break;
	case 8: v = orig ^ (1ULL << below(8 * width)); break;
	default: v = next(); break;
	}
	v &= max;
	return v == orig ? (orig ^ 1) & max : v;
}

uint64_t get_field(const uint8_t *p, int width, bool big)
{
	uint64_t v = 0;

	for (int i = 0; i < width; i++)
		v |= (uint64_t)p[big ? width - 1 - i : i] << (8 * i);
	return v;
}

void put_field(uint8_t *p, int width, bool big, uint64_t v)
{
	for (int i = 0; i < width; i++)
		p[big ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Damages one of n fields of the structure at base (bounded by size). */
void damage(uint8_t *base, size_t size, const struct field *f, unsigned n, bool big)
{
	const struct field *t = &f[below(n)];

	if (t->off + (size_t)t->width > size)
		return;
	put_field(base + t->off, t->width, big,
		  pick(get_field(base + t->off, t->width, big), t->width));
	fprintf(stderr, "craft: %s\n", t->name);
}

#define SB(m) { #m, offsetof(struct ext2_super_block, m), sizeof(((struct ext2_super_block *)0)->m) }
static const struct field sb_fields[] = {
	SB(s_inodes_count), SB(s_blocks_count), SB(s_r_blocks_count), SB(s_free_blocks_count),
	SB(s_free_inodes_count), SB(s_first_data_block), SB(s_log_block_size),
	SB(s_log_cluster_size), SB(s_blocks_per_group), SB(s_clusters_per_group),
	SB(s_inodes_per_group), SB(s_state), SB(s_errors), SB(s_rev_level), SB(s_first_ino),
	SB(s_inode_size), SB(s_reserved_gdt_blocks), SB(s_journal_inum), SB(s_last_orphan),
	SB(s_desc_size), SB(s_first_meta_bg), SB(s_min_extra_isize), SB(s_want_extra_isize),
	SB(s_log_groups_per_flex), SB(s_blocks_count_hi), SB(s_free_blocks_hi),
	SB(s_def_hash_version), SB(s_mmp_block), SB(s_encoding), SB(s_orphan_file_inum),
	SB(s_backup_bgs[0]), SB(s_checksum_type),
};
static const struct field feature_fields[] = {
	SB(s_feature_compat), SB(s_feature_incompat), SB(s_feature_ro_compat),
};

/* The primary superblock, damaged by fn's choice, its checksum set again. */
static int raw_super(int fd, const struct field *f, unsigned n, bool features)
{
	struct ext2_super_block sb;

	if (pread(fd, &sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb))
		return fail("read superblock", errno);
	if (features) {	/* one or two feature bits flipped */
		for (unsigned i = 0, k = 1 + below(2); i < k; i++) {
			const struct field *t = &f[below(n)];
			uint8_t *p = (uint8_t *)&sb + t->off;

			put_field(p, 4, false, get_field(p, 4, false) ^ (1U << below(32)));
			fprintf(stderr, "craft: %s\n", t->name);
		}
	} else {
		damage((uint8_t *)&sb, sizeof(sb), f, n, false);
	}
	ext2fs_superblock_csum_set(fs, &sb);
	if (pwrite(fd, &sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb))
		return fail("write superblock", errno);
	return 0;
}

/* A location for a group's metadata: in range, at the edges, outside. */
blk64_t pick_block(blk64_t orig)
{
	blk64_t n = ext2fs_blocks_count(fs->super);

	switch (below(8)) {
	case 0: return 0;
	case 1: return fs->super->s_first_data_block;
	case 2: return n - 1;
	case 3: return n;
	case 4: return n + 1 + below(1U << 20);
	case 5: return ext2fs_inode_table_loc(fs, 0);
	case 6: return orig + 1;
	default: return below((unsigned)n);
	}
}

static int groups(void)
{
	dgrp_t g = below(fs->group_desc_count);
	const char *what[] = { "block bitmap", "inode bitmap", "inode table", "free blocks",
			       "free inodes", "used dirs", "flags", "itable unused" };
	unsigned k = below(8);

	switch (k) {
	case 0: ext2fs_block_bitmap_loc_set(fs, g, pick_block(ext2fs_block_bitmap_loc(fs, g))); break;
	case 1: ext2fs_inode_bitmap_loc_set(fs, g, pick_block(ext2fs_inode_bitmap_loc(fs, g))); break;
	case 2: ext2fs_inode_table_loc_set(fs, g, pick_block(ext2fs_inode_table_loc(fs, g))); break;
	case 3: ext2fs_bg_free_blocks_count_set(fs, g, (uint32_t)pick(ext2fs_bg_free_blocks_count(fs, g), 4)); break;
	case 4: ext2fs_bg_free_inodes_count_set(fs, g, (uint32_t)pick(ext2fs_bg_free_inodes_count(fs, g), 4)); break;
	case 5: ext2fs_bg_used_dirs_count_set(fs, g, (uint32_t)pick(ext2fs_bg_used_dirs_count(fs, g), 4)); break;
	case 6: ext2fs_bg_flags_set(fs, g, (uint16_t)pick(ext2fs_bg_flags(fs, g), 2)); break;
	default: ext2fs_bg_itable_unused_set(fs, g, (uint32_t)pick(ext2fs_bg_itable_unused(fs, g), 4)); break;
	}
	fprintf(stderr, "craft: group %u %s\n", g, what[k]);
	ext2fs_group_desc_csum_set(fs, g);
	ext2fs_mark_super_dirty(fs);
	return 0;
}

static const char *const targets[] = { "", "file", "sparse", "dir", "htree", "fast", "slow", "xfile" };

static int lookup(const char *name, ext2_ino_t *ino)
{
	errcode_t err = *name ? ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, name, ino) : 0;

	if (!*name)
		*ino = EXT2_ROOT_INO;
	return err ? fail(name, err) : 0;
}

static int read_inode(ext2_ino_t ino, struct ext2_inode_large *in)
{
	errcode_t err;

	memset(in, 0, sizeof(*in));
	err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)in, sizeof(*in));
	return err ? fail("read inode", err) : 0;
}

static int write_inode(ext2_ino_t ino, struct ext2_inode_large *in)
{
	errcode_t err = ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)in, sizeof(*in));

	return err ? fail("write inode", err) : 0;
}

#define IN(m) { #m, offsetof(struct ext2_inode_large, m), sizeof(((struct ext2_inode_large *)0)->m) }
static const struct field inode_fields[] = {
	IN(i_mode), IN(i_size), IN(i_links_count), IN(i_blocks), IN(i_flags), IN(i_block[0]),
	IN(i_block[1]), IN(i_block[2]), IN(i_block[3]), IN(i_block[4]), IN(i_block[5]),
	IN(i_block[8]), IN(i_block[12]), IN(i_block[13]), IN(i_block[14]), IN(i_file_acl),
	IN(i_size_high), IN(i_extra_isize), IN(osd2.linux2.l_i_blocks_hi),
	IN(osd2.linux2.l_i_file_acl_high), IN(i_ctime_extra), IN(i_projid),
};

/* One field of one inode; "symlink" only the symlinks' sizes, flags and blocks. */
int inodes(bool symlinks)
{
	static const struct field link_fields[] = {
		IN(i_size), IN(i_flags), IN(i_blocks), IN(i_block[0]), IN(i_block[14]), IN(i_size_high),
	};
	struct ext2_inode_large in;
	ext2_ino_t ino;
	const char *name = symlinks ? targets[5 + below(2)] : targets[below(8)];

	if (lookup(name, &ino) || read_inode(ino, &in))
		return 1;
	fprintf(stderr, "craft: inode /%s\n", name);
	if (symlinks)
		damage((uint8_t *)&in, sizeof(in), link_fields, 6, false);
	else
		damage((uint8_t *)&in, sizeof(in), inode_fields,
		       sizeof(inode_fields) / sizeof(inode_fields[0]), false);
	return write_inode(ino, &in);
}

/* One field of an extent node: its header or one entry (perhaps one past
 * the last). */
static void damage_node(uint8_t *node, size_t size)
{
	static const struct field head[] = {
		{ "eh_magic", 0, 2 }, { "eh_entries", 2, 2 }, { "eh_max", 4, 2 }, { "eh_depth", 6, 2 },
	};
	static const struct field entry[] = {
		{ "ee_block", 0, 4 }, { "ee_len", 4, 2 }, { "ee_start_hi", 6, 2 }, { "ee_start", 8, 4 },
	};
	unsigned n = (unsigned)get_field(node + 2, 2, false), k;

	if (below(3) == 0) {
		damage(node, size, head, 4, false);
		return;
	}
	k = below(n + 1);
	if (12 + 12 * (size_t)(k + 1) > size)
		k = 0;
	fprintf(stderr, "craft: extent entry %u\n", k);
	damage(node + 12 + 12 * k, 12, entry, 4, false);
}

static int extents(void)
{
	struct ext2_inode_large in;
	ext2_ino_t ino;
	const char *name = below(3) ? "sparse" : "file";
	struct ext3_extent_header *eh;
	char *buf;
	blk64_t leaf;
	errcode_t err;

	if (lookup(name, &ino) || read_inode(ino, &in))
		return 1;
	eh = (struct ext3_extent_header *)in.i_block;
	if (!(in.i_flags & EXT4_EXTENTS_FL) || eh->eh_magic != EXT3_EXT_MAGIC)
		return inodes(false);	/* a block-mapped base: the inode family */
	fprintf(stderr, "craft: extent tree of /%s\n", name);
	if (!eh->eh_depth || below(3) == 0) {
		damage_node((uint8_t *)in.i_block, sizeof(in.i_block));
		return write_inode(ino, &in);
	}
	leaf = ((struct ext3_extent_idx *)(eh + 1))->ei_leaf |
	       (blk64_t)((struct ext3_extent_idx *)(eh + 1))->ei_leaf_hi << 32;
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (!err)
		err = io_channel_read_blk64(fs->io, leaf, 1, buf);
	if (!err) {
		damage_node((uint8_t *)buf, fs->blocksize);
		/* libext2fs finds the checksum after eh_max entries: only
		 * where that is inside the block (else the sum stays wrong) */
		if (12 + 12 * (size_t)((struct ext3_extent_header *)buf)->eh_max + 4 <=
		    fs->blocksize)
			ext2fs_extent_block_csum_set(fs, ino, (struct ext3_extent_header *)buf);
		err = io_channel_write_blk64(fs->io, leaf, 1, buf);
	}
	ext2fs_free_mem(&buf);
	return err ? fail("extent leaf", err) : 0;
}

/* One field of one entry of a directory block, or of an htree root. */
static int dirs(void)
{
	static const struct field entry[] = {
		{ "inode", 0, 4 }, { "rec_len", 4, 2 }, { "name_len", 6, 1 }, { "file_type", 7, 1 },
	};
	static const struct field root[] = {
		{ "hash_version", 28, 1 }, { "info_length", 29, 1 }, { "indirect_levels", 30, 1 },
		{ "limit", 32, 2 }, { "count", 34, 2 }, { "block", 36, 4 }, { "hash[1]", 40, 4 },
		{ "block[1]", 44, 4 },
	};
	const char *name = targets[below(3) ? 4 : 3 - 3 * below(2)];
	ext2_ino_t ino;
	struct ext2_inode_large in;
	blk64_t lblk, pblk = 0;
	unsigned off = 0, k;
	char *buf;
	errcode_t err;

	if (lookup(name, &ino) || read_inode(ino, &in))
		return 1;
	lblk = below((unsigned)(EXT2_I_SIZE(&in) / fs->blocksize));
	err = ext2fs_bmap2(fs, ino, (struct ext2_inode *)&in, NULL, 0, lblk, NULL, &pblk);
	if (err || !pblk)
		return fail("directory block", err);
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (!err)
		err = io_channel_read_blk64(fs->io, pblk, 1, buf);
	if (err)
		return fail("read directory block", err);
	fprintf(stderr, "craft: directory /%s block %llu\n", name, (unsigned long long)lblk);
	if (lblk == 0 && (in.i_flags & EXT2_INDEX_FL) && below(2)) {
		damage((uint8_t *)buf, fs->blocksize, root, 8, false);
	} else {
		/* walk to entry k, within the block, by the entries' own lengths */
		for (k = below(8); k--;) {
			unsigned rl = (unsigned)get_field((uint8_t *)buf + off + 4, 2, false);

			if (rl < 12 || off + rl + 12 > fs->blocksize)
				break;
			off += rl;
		}
		damage((uint8_t *)buf + off, fs->blocksize - off, entry, 4, false);
	}
	ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)buf);
	err = io_channel_write_blk64(fs->io, pblk, 1, buf);
	ext2fs_free_mem(&buf);
	return err ? fail("write directory block", err) : 0;
}

/* One field of the first entry in the inode's own xattr space (after
 * i_extra_isize and the magic), the whole on-disk inode read and written. */
static int inode_xattrs(ext2_ino_t ino, const struct field *entry, unsigned n)
{
	unsigned size = EXT2_INODE_SIZE(fs->super), off;
	uint8_t raw[1024];
	errcode_t err;

	if (size > sizeof(raw))
		return fail("inode size", EXT2_ET_CORRUPT_SUPERBLOCK);
	err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)raw, size);
	if (err)
		return fail("read inode", err);
	off = EXT2_GOOD_OLD_INODE_SIZE + ((struct ext2_inode_large *)raw)->i_extra_isize + 4;
	if (off + 16 > size)
		return fail("no xattr space in the inode", 0);
	fprintf(stderr, "craft: in-inode xattr\n");
	damage(raw + off, size - off, entry, n, false);
	err = ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)raw, size);
	return err ? fail("write inode", err) : 0;
}

/* One field of the xattr block's header or of one of its entries, or of an
 * entry in the inode's own xattr space. */
static int xattrs(void)
{
	static const struct field head[] = {
		{ "h_magic", 0, 4 }, { "h_refcount", 4, 4 }, { "h_blocks", 8, 4 }, { "h_hash", 12, 4 },
	};
	static const struct field entry[] = {
		{ "e_name_len", 0, 1 }, { "e_name_index", 1, 1 }, { "e_value_offs", 2, 2 },
		{ "e_value_inum", 4, 4 }, { "e_value_size", 8, 4 }, { "e_hash", 12, 4 },
	};
	struct ext2_inode_large in;
	ext2_ino_t ino;
	blk64_t blk;
	uint8_t *buf;
	errcode_t err;
	unsigned off;

	if (lookup("xfile", &ino) || read_inode(ino, &in))
		return 1;
	blk = ext2fs_file_acl_block(fs, (struct ext2_inode *)&in);
	if (!blk || below(3) == 0)
		return inode_xattrs(ino, entry, 6);
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (!err)
		err = io_channel_read_blk64(fs->io, blk, 1, buf);
	if (err)
		return fail("read xattr block", err);
	fprintf(stderr, "craft: xattr block\n");
	if (below(3) == 0) {
		damage(buf, fs->blocksize, head, 4, false);
	} else {	/* the first or second entry */
		off = 32;
		if (below(2) && buf[off])
			off += (16 + buf[off] + 3) & ~3U;
		damage(buf + off, fs->blocksize - off, entry, 6, false);
	}
	ext2fs_ext_attr_block_csum_set(fs, ino, blk, (struct ext2_ext_attr_header *)buf);
	err = io_channel_write_blk64(fs->io, blk, 1, buf);
	ext2fs_free_mem(&buf);
	return err ? fail("write xattr block", err) : 0;
}

/* A few bytes of one metadata block flipped, checksums left as they are. */
static int bytes(void)
{
	struct ext2_inode_large in;
	ext2_ino_t ino;
	blk64_t b[4] = { fs->super->s_first_data_block, ext2fs_inode_table_loc(fs, 0),
			 ext2fs_block_bitmap_loc(fs, 0), 0 };
	blk64_t blk;
	uint8_t *buf;
	errcode_t err;

	if (!lookup("xfile", &ino) && !read_inode(ino, &in))
		b[3] = ext2fs_file_acl_block(fs, (struct ext2_inode *)&in);
	blk = b[below(4)];
	if (!blk)
		blk = b[1];
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (!err)
		err = io_channel_read_blk64(fs->io, blk, 1, buf);
	if (err)
		return fail("read block", err);
	for (unsigned i = 0, n = 1 + below(8); i < n; i++)
		buf[below(fs->blocksize)] ^= (uint8_t)(1 + below(255));
	fprintf(stderr, "craft: bytes of block %llu\n", (unsigned long long)blk);
	err = io_channel_write_blk64(fs->io, blk, 1, buf);
	ext2fs_free_mem(&buf);
	return err ? fail("write block", err) : 0;
}

static const char *const families[] = {
	"super", "features", "groups", "inode", "extent", "dir", "xattr", "symlink", "journal",
	"bytes",
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

static int copy(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out < 0 || close(out) || in < 0 || n < 0)
		return fail(to, errno);
	return 0;
}

static int craft(unsigned family, const char *out)
{
	errcode_t err = ext2fs_open(out, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	int rc, fd;

	if (err)
		return fail(out, err);
	switch (family) {
	case 0:
	case 1:
		fd = open(out, O_RDWR);
		rc = fd < 0 ? fail(out, errno) : raw_super(fd, family ? feature_fields : sb_fields,
			family ? 3 : sizeof(sb_fields) / sizeof(sb_fields[0]), family == 1);
		if (fd >= 0)
			close(fd);
		ext2fs_free(fs);	/* nothing of the handle may be written over it */
		return rc;
	case 2: rc = groups(); break;
	case 3: rc = inodes(false); break;
	case 4: rc = extents(); break;
	case 5: rc = dirs(); break;
	case 6: rc = xattrs(); break;
	case 7: rc = inodes(true); break;
	case 8: rc = journal(); break;
	default: rc = bytes(); break;
	}
	err = ext2fs_close_free(&fs);
	return rc ? rc : err ? fail("close", err) : 0;
}

int main(int argc, char **argv)
{
	unsigned f;
	char *end;
	unsigned long long seed;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (f = 0; f < NFAMILIES; f++)
			puts(families[f]);
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: craft FAMILY SEED BASE OUT | craft --list\n");
		return 2;
	}
	for (f = 0; f < NFAMILIES && strcmp(argv[1], families[f]); f++)
		;
	seed = strtoull(argv[2], &end, 10);
	if (f == NFAMILIES || *end || end == argv[2]) {
		fprintf(stderr, "craft: unknown family '%s' or bad seed '%s' (craft --list)\n",
			argv[1], argv[2]);
		return 2;
	}
	rng_state = seed * 1000003ULL + f;
	initialize_ext2_error_table();
	return copy(argv[3], argv[4]) || craft(f, argv[4]) ? 1 : 0;
}
