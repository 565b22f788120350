/* tests/unit/server_unit.c: unit tests of the server's -o option parser,
 * feature policy, lookup-count table, directory name cache and name escaping
 * (server/options.c, features.c, nodes.c, dcache.c, printable.c). */
#include "../../server/dcache.h"
#include "../../server/features.h"
#include "../../server/nodes.h"
#include "../../server/options.h"
#include "../../server/printable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;

static void report(const char *name, int pass, const char *detail)
{
	printf("%sok - server/%s\n", pass ? "" : "not ", name);
	if (!pass)
		printf("# %s\n", detail);
	failed |= !pass;
}

static void t_options(void)
{
	struct ec_options o;
	char err[256] = "";
	int rc;

	memset(&o, 0, sizeof(o));
	rc = ec_options_parse(&o, "ro,kernel,errors=remount-ro,uid=1000,gid=100,nodev,norecovery", err, sizeof(err));
	report("options/accepts", !rc && o.ro && o.kernel && o.errors == EC_ERRORS_RO && o.has_uid &&
	       o.uid == 1000 && o.has_gid && o.gid == 100 && o.norecovery, err);
	rc = ec_options_parse(&o, "rw", err, sizeof(err));
	report("options/rw-overrides-ro", !rc && !o.ro, err);
	rc = ec_options_parse(&o, "bogus", err, sizeof(err));
	report("options/unknown-refused", rc && strstr(err, "bogus"), err);
	rc = ec_options_parse(&o, "errors=explode", err, sizeof(err));
	report("options/bad-errors-value", rc && strstr(err, "errors="), err);
	rc = ec_options_parse(&o, "uid=-1", err, sizeof(err)) == 0 ||
	     ec_options_parse(&o, "uid=4294967295", err, sizeof(err)) == 0 ||
	     ec_options_parse(&o, "gid=12x", err, sizeof(err)) == 0 ||
	     ec_options_parse(&o, "uid=", err, sizeof(err)) == 0;
	report("options/bad-ids", !rc, "a bad uid=/gid= value was accepted");
	memset(&o, 0, sizeof(o));
	rc = ec_options_parse(&o, "iomap=on", err, sizeof(err));
	report("options/iomap", !rc && o.iomap == EC_IOMAP_ON &&
	       !ec_options_parse(&o, "iomap=off", err, sizeof(err)) && o.iomap == EC_IOMAP_OFF &&
	       !ec_options_parse(&o, "iomap=auto", err, sizeof(err)) && o.iomap == EC_IOMAP_AUTO &&
	       ec_options_parse(&o, "iomap=yes", err, sizeof(err)) && strstr(err, "iomap=auto"), err);
	memset(&o, 0, sizeof(o));
	rc = ec_options_parse(&o, "journal=off,iomap=on,errors=panic", err, sizeof(err));
	report("options/journal", !rc && o.journal == EC_JOURNAL_OFF && o.iomap == EC_IOMAP_ON &&
	       o.errors == EC_ERRORS_PANIC &&
	       !ec_options_parse(&o, "journal=on", err, sizeof(err)) && o.journal == EC_JOURNAL_ON &&
	       o.iomap == EC_IOMAP_ON && ec_options_parse(&o, "journal=", err, sizeof(err)) &&
	       strstr(err, "journal=auto, on or off"), err);
}

static void t_features(void)
{
	struct ext2_super_block sb;
	char msg[256];
	enum ec_feature_verdict v;

	memset(&sb, 0, sizeof(sb));
	sb.s_rev_level = EXT2_DYNAMIC_REV;
	sb.s_feature_incompat = EXT2_FEATURE_INCOMPAT_FILETYPE | EXT3_FEATURE_INCOMPAT_EXTENTS |
				EXT4_FEATURE_INCOMPAT_64BIT | EXT4_FEATURE_INCOMPAT_FLEX_BG;
	sb.s_feature_ro_compat = EXT4_FEATURE_RO_COMPAT_METADATA_CSUM | EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	v = ec_features_check(&sb, msg, sizeof(msg));
	report("features/ext4-rw", v == EC_FEAT_RW, msg);
	sb.s_feature_incompat |= EXT4_FEATURE_INCOMPAT_CASEFOLD;
	v = ec_features_check(&sb, msg, sizeof(msg));
	report("features/casefold-refused", v == EC_FEAT_REFUSE && strstr(msg, "casefold"), msg);
	sb.s_feature_incompat &= ~EXT4_FEATURE_INCOMPAT_CASEFOLD;
	sb.s_feature_incompat |= 0x80000000u;
	v = ec_features_check(&sb, msg, sizeof(msg));
	report("features/unknown-incompat-refused", v == EC_FEAT_REFUSE && strstr(msg, "0x80000000"), msg);
	sb.s_feature_incompat &= ~0x80000000u;
	sb.s_feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_QUOTA;
	v = ec_features_check(&sb, msg, sizeof(msg));
	report("features/quota-ro", v == EC_FEAT_RO && strstr(msg, "quota"), msg);
	sb.s_feature_ro_compat = 0x40000000u;
	v = ec_features_check(&sb, msg, sizeof(msg));
	report("features/unknown-ro_compat-ro", v == EC_FEAT_RO, msg);
	sb.s_rev_level = 7;
	v = ec_features_check(&sb, msg, sizeof(msg));
	report("features/bad-revision", v == EC_FEAT_REFUSE && strstr(msg, "revision"), msg);
}

static int drained;

static void count_drained(uint32_t ino, void *arg)
{
	(void)ino, (void)arg;
	drained++;
}

static void t_nodes(void)
{
	struct ec_nodes t = { NULL, 0, 0 };
	uint32_t i;
	int ok = 1;

	for (i = 0; i < 3; i++)
		ok &= ec_nodes_ref(&t, 5) == 0;
	ok &= ec_nodes_count(&t, 5) == 3 && ec_nodes_unref(&t, 5, 2) == 1 && ec_nodes_unref(&t, 5, 1) == 0;
	ok &= ec_nodes_count(&t, 5) == 0 && ec_nodes_unref(&t, 5, 1) == 0;
	report("nodes/ref-unref", ok, "lookup counts wrong for one inode");
	ok = 1;
	for (i = 1; i <= 5000; i++)
		ok &= ec_nodes_ref(&t, i * 7919u) == 0;
	for (i = 1; i <= 5000; i++)
		ok &= ec_nodes_count(&t, i * 7919u) == 1;
	ok &= ec_nodes_count(&t, 3) == 0 && t.count == 5000;
	report("nodes/grow", ok, "counts lost while the table grew");
	ec_nodes_drain(&t, count_drained, NULL);
	report("nodes/drain", drained == 5000 && t.count == 0 && ec_nodes_count(&t, 7919) == 0,
	       "drain did not visit every inode once");
}

/* What the cache answers for name in dir: 'f' found (ino, lblk checked
 * against want_ino, want_lblk), 'a' absent, 'u' unknown. */
static char answer(struct ec_dcache *t, uint32_t dir, const char *name, uint32_t want_ino,
		   uint64_t want_lblk)
{
	uint32_t ino = 0;
	uint64_t lblk = 0;

	switch (ec_dcache_find(t, dir, name, strlen(name), &ino, &lblk)) {
	case EC_DCACHE_FOUND:
		return ino == want_ino && lblk == want_lblk ? 'f' : 'x';
	case EC_DCACHE_ABSENT:
		return 'a';
	default:
		return 'u';
	}
}

static void t_dcache(void)
{
	struct ec_dcache t = { 0 };
	char name[32];
	int ok = 1;

	ok &= answer(&t, 2, "a", 0, 0) == 'u' && ec_dcache_add(&t, 2, "a", 1, 12, 0) == 0 &&
	      answer(&t, 2, "a", 0, 0) == 'u';
	report("dcache/uncached-dir", ok, "a directory never started answered");
	ok = !ec_dcache_start(&t, 2) && answer(&t, 2, "a", 0, 0) == 'a' &&
	     !ec_dcache_add(&t, 2, "a", 1, 12, 3) && !ec_dcache_add(&t, 2, "ab", 2, 13, EC_DCACHE_NOBLK) &&
	     answer(&t, 2, "a", 12, 3) == 'f' && answer(&t, 2, "ab", 13, EC_DCACHE_NOBLK) == 'f' &&
	     answer(&t, 2, "b", 0, 0) == 'a' && answer(&t, 3, "a", 0, 0) == 'u';
	report("dcache/find", ok, "names of a started directory not answered as added");
	ec_dcache_retarget(&t, 2, "a", 1, 20);
	ec_dcache_remove(&t, 2, "ab", 2);
	ok = answer(&t, 2, "a", 20, 3) == 'f' && answer(&t, 2, "ab", 0, 0) == 'a';
	report("dcache/retarget-remove", ok, "a retargeted or removed name answered wrong");
	ok = !ec_dcache_start(&t, 5);
	for (int i = 0; i < 10000; i++) {
		snprintf(name, sizeof(name), "file%d", i);
		ok &= !ec_dcache_add(&t, 5, name, strlen(name), (uint32_t)(100 + i), (uint64_t)i / 50);
	}
	for (int i = 0; i < 10000; i++) {
		snprintf(name, sizeof(name), "file%d", i);
		ok &= answer(&t, 5, name, (uint32_t)(100 + i), (uint64_t)i / 50) == 'f';
	}
	report("dcache/many-names", ok && t.count == 10000 + 1 + 2, "names lost while the table grew");
	ec_dcache_forget(&t, 5);
	ok = answer(&t, 5, "file1", 0, 0) == 'u' && t.count == 2 && answer(&t, 2, "a", 20, 3) == 'f';
	report("dcache/forget", ok, "forgetting one directory lost another's names or kept its own");
	ok = ec_dcache_add(&t, 2, "", 0, 1, 0) != 0 && answer(&t, 2, "a", 0, 0) == 'u';
	report("dcache/bad-name-forgets", ok, "an empty name was cached, or its directory kept");
	ec_dcache_free(&t);
	report("dcache/free", t.count == 0 && !t.bucket, "free left names");
}

/* Does f(in) give want? (frees the copy) */
static int escapes(char *(*f)(const char *), const char *in, const char *want)
{
	char *out = f(in);
	int same = out && !strcmp(out, want);

	free(out);
	return same;
}

static void t_printable(void)
{
	report("printable/control characters", escapes(ec_printable, "a\nb\x7f\\c\tä",
	       "a\\x0ab\\x7f\\\\c\\x09ä"), "a newline, DEL, backslash or tab kept as is");
	report("printable/option commas", escapes(ec_opt_escape, "/i,debug\\x",
	       "/i\\,debug\\\\x"), "a comma or backslash not escaped for libfuse");
}

int main(void)
{
	t_options();
	t_features();
	t_nodes();
	t_dcache();
	t_printable();
	return failed;
}
