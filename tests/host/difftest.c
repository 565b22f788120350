/* tests/host/difftest.c: differential test. Applies one seeded random sequence
 * of file system operations to two directory trees (an ext4cell mount and a
 * kernel ext4 mount of a copy of the same image), compares every operation's
 * result as it goes, then compares the final trees: names, types, modes,
 * owners, sizes, link counts, content hashes, symlink targets and xattrs.
 * usage: difftest SEED NOPS DIR_A DIR_B PREFIX */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static uint64_t rng_state;
static int mismatches;
static long compared; /* entries compared, reported for confidence */
static const char *root[2];

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static void mismatch(const char *fmt, const char *a, long x, long y)
{
	if (++mismatches <= 30) {
		printf("# ");
		printf(fmt, a, x, y);
		printf("\n");
	}
}

/* A random relative path of 1..3 components from a tiny namespace, so that
 * operations collide with each other often. */
static void random_path(char *buf, size_t len)
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "long-name-f" };
	unsigned int depth = 1 + below(3), i;

	buf[0] = 0;
	for (i = 0; i < depth; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s", i ? "/" : "", names[below(6)]);
	}
}

struct op {
	int kind;
	char p1[64], p2[64];
	unsigned int mode, flags, seed;
	off_t off;
	size_t len;
};

static void fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
}

static unsigned char wbuf[320 * 1024];

/* Runs op in tree t (cwd = that root); returns 0 or errno. */
static int run(const struct op *o)
{
	int fd, rc = 0;

	errno = 0;
	switch (o->kind) {
	case 0: /* write */
	case 1: /* append */
		fd = open(o->p1, O_CREAT | O_WRONLY | O_NONBLOCK | (o->kind ? O_APPEND : 0), o->mode);
		if (fd < 0)
			return errno;
		fill(wbuf, o->len, o->seed);
		if ((o->kind ? write(fd, wbuf, o->len) : pwrite(fd, wbuf, o->len, o->off)) < 0)
			rc = errno;
		close(fd);
		return rc;
	case 2:
		return truncate(o->p1, o->off) ? errno : 0;
	case 3:
		return mkdir(o->p1, o->mode) ? errno : 0;
	case 4:
		return rmdir(o->p1) ? errno : 0;
	case 5:
		return unlink(o->p1) ? errno : 0;
	case 6:
		return renameat2(AT_FDCWD, o->p1, AT_FDCWD, o->p2, o->flags) ? errno : 0;
	case 7:
		return link(o->p1, o->p2) ? errno : 0;
	case 8:
		return symlink(o->p2, o->p1) ? errno : 0;
	case 9:
		return chmod(o->p1, o->mode) ? errno : 0;
	case 10: {
		char name[16];
		snprintf(name, sizeof(name), "user.x%u", o->seed % 5);
		fill(wbuf, o->len, o->seed);
		return lsetxattr(o->p1, name, wbuf, o->len, 0) ? errno : 0;
	}
	case 11: {
		char name[16];
		snprintf(name, sizeof(name), "user.x%u", o->seed % 5);
		return lremovexattr(o->p1, name) ? errno : 0;
	}
	case 12:
		return lchown(o->p1, o->mode, o->flags) ? errno : 0;
	case 13:
		return mknod(o->p1, S_IFIFO | (o->mode & 0777), 0) ? errno : 0;
	case 14: /* a POSIX ACL (access or default) in the xattr format */
	case 15: {
		unsigned char acl[4 + 5 * 8];
		static const unsigned short tags[5] = { 1, 2, 4, 0x10, 0x20 };
		int k;
		memset(acl, 0, sizeof(acl));
		acl[0] = 2;
		for (k = 0; k < 5; k++) {
			unsigned char *e = acl + 4 + 8 * k;
			unsigned int perm = (o->seed >> (3 * k)) & 7, id = k == 1 ? 1000 + o->mode % 7 : 0;
			e[0] = (unsigned char)tags[k];
			e[2] = (unsigned char)perm;
			memcpy(e + 4, &id, 4);
		}
		return lsetxattr(o->p1, o->kind == 14 ? "system.posix_acl_access" : "system.posix_acl_default",
				 acl, sizeof(acl), 0) ? errno : 0;
	}
	case 16: { /* fallocate: allocate, keep size, punch a hole, zero a range */
		static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					     FALLOC_FL_ZERO_RANGE, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE };
		fd = open(o->p1, O_WRONLY | O_NONBLOCK);
		if (fd < 0)
			return errno;
		if (fallocate(fd, modes[o->seed % 5], o->off, (off_t)o->len + 1))
			rc = errno;
		close(fd);
		return rc;
	}
	default:
		return EINVAL;
	}
}

static void make_op(struct op *o)
{
	static const unsigned int weights[] = { 20, 6, 6, 10, 5, 8, 12, 5, 4, 3, 5, 2, 2, 2, 3, 4, 6 };
	unsigned int total = 0, r, i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
		total += weights[i];
	r = below(total);
	for (i = 0; r >= weights[i]; i++)
		r -= weights[i];
	o->kind = (int)i;
	random_path(o->p1, sizeof(o->p1));
	random_path(o->p2, sizeof(o->p2));
	o->mode = below(3) ? 0644 : 0600 | below(01000);
	o->seed = (unsigned int)rnd();
	o->len = below(8) ? below(20000) : below(sizeof(wbuf));
	o->off = below(4) ? below(100000) : below(3000000);
	if (o->kind == 6)
		o->flags = below(4) == 0 ? RENAME_NOREPLACE : below(4) == 0 ? RENAME_EXCHANGE : 0;
	if (o->kind == 10)
		o->len = below(120);
	if (o->kind == 12) {
		o->mode = below(3000);
		o->flags = below(3000);
	}
}

/* FNV-1a of a file's contents. */
static int hash_file(const char *path, uint64_t *h)
{
	unsigned char buf[65536];
	ssize_t n, i;
	int fd = open(path, O_RDONLY);

	*h = 1469598103934665603ULL;
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			*h = (*h ^ buf[i]) * 1099511628211ULL;
	close(fd);
	return n < 0 ? -1 : 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of dir (without . and .. and lost+found). */
static int list_dir(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	*names = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "lost+found"))
			continue;
		*names = realloc(*names, sizeof(char *) * (size_t)(n + 1));
		(*names)[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(*names, (size_t)n, sizeof(char *), cmp_names);
	return n;
}

static void free_names(char **names, int n)
{
	while (n > 0)
		free(names[--n]);
	free(names);
}

/* Sorts a NUL-separated name list in place (order is the filesystem's choice). */
static void sort_list(char *list, ssize_t len)
{
	char *names[256], copy[4096], *p, *out = list;
	int n = 0, i;

	if (len <= 0 || len > (ssize_t)sizeof(copy))
		return;
	memcpy(copy, list, (size_t)len);
	for (p = copy; p < copy + len && n < 256; p += strlen(p) + 1)
		names[n++] = p;
	if (n > 1)
		qsort(names, (size_t)n, sizeof(char *), cmp_names);
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]) + 1;
		memcpy(out, names[i], l);
		out += l;
	}
}

static void compare_xattrs(const char *a, const char *b, const char *rel)
{
	char la[4096], lb[4096], va[4096], vb[4096], *p;
	ssize_t na = llistxattr(a, la, sizeof(la)), nb = llistxattr(b, lb, sizeof(lb));

	sort_list(la, na);
	sort_list(lb, nb);
	if (na != nb || (na > 0 && memcmp(la, lb, (size_t)na))) {
		mismatch("%s: xattr name lists differ (%ld vs %ld bytes)", rel, na, nb);
		return;
	}
	for (p = la; na > 0 && p < la + na; p += strlen(p) + 1) {
		ssize_t x = lgetxattr(a, p, va, sizeof(va)), y = lgetxattr(b, p, vb, sizeof(vb));
		if (x != y || (x > 0 && memcmp(va, vb, (size_t)x)))
			mismatch("%s: xattr value differs (%ld vs %ld bytes)", rel, x, y);
	}
}

static void compare_tree(const char *rel)
{
	char pa[1024], pb[1024], **na, **nb;
	int ca, cb, i;

	snprintf(pa, sizeof(pa), "%s/%s", root[0], rel);
	snprintf(pb, sizeof(pb), "%s/%s", root[1], rel);
	ca = list_dir(pa, &na);
	cb = list_dir(pb, &nb);
	if (ca != cb) {
		mismatch("%s: entry counts differ (%ld vs %ld)", rel, ca, cb);
	} else {
		for (i = 0; i < ca; i++) {
			char ea[1100], eb[1100], sub[1100];
			struct stat sa, sb;
			if (strcmp(na[i], nb[i])) {
				mismatch("%s: names differ at index %ld (%ld)", rel, i, 0);
				break;
			}
			snprintf(ea, sizeof(ea), "%s/%s", pa, na[i]);
			snprintf(eb, sizeof(eb), "%s/%s", pb, nb[i]);
			snprintf(sub, sizeof(sub), "%s/%s", rel, na[i]);
			compared++;
			if (lstat(ea, &sa) || lstat(eb, &sb)) {
				mismatch("%s: lstat failed (%ld %ld)", sub, errno, 0);
				continue;
			}
			if (sa.st_mode != sb.st_mode)
				mismatch("%s: mode %lo vs %lo", sub, (long)sa.st_mode, (long)sb.st_mode);
			if (sa.st_nlink != sb.st_nlink)
				mismatch("%s: nlink %ld vs %ld", sub, (long)sa.st_nlink, (long)sb.st_nlink);
			if (sa.st_uid != sb.st_uid || sa.st_gid != sb.st_gid)
				mismatch("%s: owner uid %ld vs %ld", sub, (long)sa.st_uid, (long)sb.st_uid);
			if (!S_ISDIR(sa.st_mode) && sa.st_size != sb.st_size)
				mismatch("%s: size %ld vs %ld", sub, (long)sa.st_size, (long)sb.st_size);
			if (S_ISREG(sa.st_mode)) {
				uint64_t ha, hb;
				if (hash_file(ea, &ha) || hash_file(eb, &hb) || ha != hb)
					mismatch("%s: contents differ (%ld %ld)", sub, 0, 0);
			}
			if (S_ISLNK(sa.st_mode)) {
				char ta[256] = "", tb[256] = "";
				if (readlink(ea, ta, sizeof(ta) - 1) < 0 || readlink(eb, tb, sizeof(tb) - 1) < 0 ||
				    strcmp(ta, tb))
					mismatch("%s: symlink targets differ (%ld %ld)", sub, 0, 0);
			}
			compare_xattrs(ea, eb, sub);
			if (S_ISDIR(sa.st_mode) && S_ISDIR(sb.st_mode))
				compare_tree(sub);
		}
	}
	free_names(na, ca > 0 ? ca : 0);
	free_names(nb, cb > 0 ? cb : 0);
}

int main(int argc, char **argv)
{
	long i, nops, op_mismatch = 0;
	char kind[32];

	if (argc != 6) {
		fprintf(stderr, "usage: difftest SEED NOPS DIR_A DIR_B PREFIX\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = strtoull(argv[1], NULL, 0) * 2654435761ULL + 88172645463325252ULL;
	nops = strtol(argv[2], NULL, 0);
	root[0] = argv[3];
	root[1] = argv[4];
	for (i = 0; i < nops; i++) {
		struct op o;
		int r[2], t;
		make_op(&o);
		for (t = 0; t < 2; t++) {
			if (chdir(root[t]))
				return 2;
			r[t] = run(&o);
		}
		if (r[0] != r[1]) {
			snprintf(kind, sizeof(kind), "op %ld", i);
			op_mismatch++;
			mismatch("%s: results differ: errno %ld vs %ld", kind, r[0], r[1]);
			printf("#   kind %d paths %s %s\n", o.kind, o.p1, o.p2);
		}
	}
	if (chdir("/"))
		return 2;
	printf("%sok - %s/op-results (seed %s, %ld ops)\n", op_mismatch ? "not " : "", argv[5], argv[1], nops);
	mismatches = 0;
	compare_tree(".");
	printf("%sok - %s/trees-match\n", mismatches ? "not " : "", argv[5]);
	printf("# %ld entries compared\n", compared);
	return op_mismatch || mismatches;
}
