/* server/features.c: the feature policy. Every incompat and ro_compat bit is
 * listed with what we do about it; unknown incompat bits refuse the mount and
 * unknown ro_compat bits force read-only, as the kernel does. */
#include "features.h"

#include <stdio.h>

struct feature {
	unsigned int bit;
	const char *name;
	enum ec_feature_verdict verdict;
	const char *why;
};

static const struct feature incompat[] = {
	{ EXT2_FEATURE_INCOMPAT_COMPRESSION, "compression", EC_FEAT_REFUSE, "not supported" },
	{ EXT2_FEATURE_INCOMPAT_FILETYPE, "filetype", EC_FEAT_RW, NULL },
	{ EXT3_FEATURE_INCOMPAT_RECOVER, "needs_recovery", EC_FEAT_RW, NULL },
	{ EXT3_FEATURE_INCOMPAT_JOURNAL_DEV, "journal_dev", EC_FEAT_REFUSE,
	  "this is an external journal device, not a filesystem" },
	{ EXT2_FEATURE_INCOMPAT_META_BG, "meta_bg", EC_FEAT_RW, NULL },
	{ EXT3_FEATURE_INCOMPAT_EXTENTS, "extent", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_INCOMPAT_64BIT, "64bit", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_INCOMPAT_MMP, "mmp", EC_FEAT_RO, "multi-mount protection is not updated" },
	{ EXT4_FEATURE_INCOMPAT_FLEX_BG, "flex_bg", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_INCOMPAT_EA_INODE, "ea_inode", EC_FEAT_REFUSE, "not supported" },
	{ EXT4_FEATURE_INCOMPAT_DIRDATA, "dirdata", EC_FEAT_REFUSE, "not supported" },
	{ EXT4_FEATURE_INCOMPAT_CSUM_SEED, "metadata_csum_seed", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_INCOMPAT_LARGEDIR, "large_dir", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_INCOMPAT_INLINE_DATA, "inline_data", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_INCOMPAT_ENCRYPT, "encrypt", EC_FEAT_REFUSE, "not supported" },
	{ EXT4_FEATURE_INCOMPAT_CASEFOLD, "casefold", EC_FEAT_REFUSE, "not supported" },
};

static const struct feature ro_compat[] = {
	{ EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER, "sparse_super", EC_FEAT_RW, NULL },
	{ EXT2_FEATURE_RO_COMPAT_LARGE_FILE, "large_file", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_RO_COMPAT_HUGE_FILE, "huge_file", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_RO_COMPAT_GDT_CSUM, "uninit_bg", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_RO_COMPAT_DIR_NLINK, "dir_nlink", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE, "extra_isize", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_RO_COMPAT_HAS_SNAPSHOT, "snapshot_bitmap", EC_FEAT_RO, "not updated" },
	{ EXT4_FEATURE_RO_COMPAT_QUOTA, "quota", EC_FEAT_RO, "quota files are not updated" },
	{ EXT4_FEATURE_RO_COMPAT_BIGALLOC, "bigalloc", EC_FEAT_RO, "writes not supported" },
	{ EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, "metadata_csum", EC_FEAT_RW, NULL },
	{ EXT4_FEATURE_RO_COMPAT_REPLICA, "replica", EC_FEAT_RO, "not supported" },
	{ EXT4_FEATURE_RO_COMPAT_READONLY, "read-only", EC_FEAT_RO, "the filesystem is marked read-only" },
	{ EXT4_FEATURE_RO_COMPAT_PROJECT, "project", EC_FEAT_RO, "project quotas are not updated" },
	{ EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS, "shared_blocks", EC_FEAT_RO, "blocks are shared" },
	{ EXT4_FEATURE_RO_COMPAT_VERITY, "verity", EC_FEAT_RO, "verity files are not updated" },
	{ EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT, "orphan_present", EC_FEAT_RO,
	  "the orphan file is not processed" },
};

/* Judges one feature word against its table; updates *worst and msg. */
static void judge(unsigned int word, const struct feature *tab, size_t n,
		  const char *kind, enum ec_feature_verdict unknown,
		  enum ec_feature_verdict *worst, char *msg, size_t msglen)
{
	unsigned int bit;
	size_t i;

	for (bit = 1; bit; bit <<= 1) {
		const struct feature *f = NULL;
		enum ec_feature_verdict v;

		if (!(word & bit))
			continue;
		for (i = 0; i < n; i++)
			if (tab[i].bit == bit)
				f = &tab[i];
		v = f ? f->verdict : unknown;
		if (v <= *worst)
			continue;
		*worst = v;
		if (f)
			snprintf(msg, msglen, "%s feature '%s': %s", kind, f->name, f->why);
		else
			snprintf(msg, msglen, "unknown %s feature bit 0x%x", kind, bit);
	}
}

enum ec_feature_verdict ec_features_check(const struct ext2_super_block *sb,
					  char *msg, size_t msglen)
{
	enum ec_feature_verdict worst = EC_FEAT_RW;

	msg[0] = 0;
	if (sb->s_rev_level > EXT2_DYNAMIC_REV) {
		snprintf(msg, msglen, "unknown revision level %u", sb->s_rev_level);
		return EC_FEAT_REFUSE;
	}
	if (sb->s_rev_level == EXT2_GOOD_OLD_REV)
		return EC_FEAT_RW;
	judge(sb->s_feature_incompat, incompat, sizeof(incompat) / sizeof(incompat[0]),
	      "incompat", EC_FEAT_REFUSE, &worst, msg, msglen);
	if (worst == EC_FEAT_REFUSE)
		return worst;
	judge(sb->s_feature_ro_compat, ro_compat, sizeof(ro_compat) / sizeof(ro_compat[0]),
	      "ro_compat", EC_FEAT_RO, &worst, msg, msglen);
	return worst;
}
