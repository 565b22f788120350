/* tests/host/posix.c: POSIX behaviour suite run on a mounted filesystem.
 * usage: posix DIR PREFIX [TEST | -TEST]...  -- runs each test (those named,
 * none of those named with a '-' before) in a fresh DIR/NAME
 * directory and prints "ok - PREFIX/NAME" or "not ok - PREFIX/NAME" with
 * "# ..." diagnostics. Exit status 1 when a test failed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

static char diag[512];

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			snprintf(diag, sizeof(diag), "line %d: %s (errno %d: %s)", \
				 __LINE__, #cond, errno, strerror(errno));       \
			return -1;                                               \
		}                                                                \
	} while (0)
#define CHECK_ERR(expr, e) CHECK((expr) == -1 && errno == (e))

static int put(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static ssize_t get(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len);
	close(fd);
	return n;
}

static void pattern(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static int t_create_rw(void)
{
	char buf[64];
	struct stat st;

	CHECK(put("f", "hello world", 11) == 0);
	CHECK(stat("f", &st) == 0 && st.st_size == 11 && S_ISREG(st.st_mode));
	CHECK((st.st_mode & 07777) == 0644);
	CHECK(get("f", buf, sizeof(buf)) == 11 && !memcmp(buf, "hello world", 11));
	CHECK(open("f", O_CREAT | O_EXCL | O_WRONLY, 0600) == -1 && errno == EEXIST);
	CHECK(put("f", "x", 1) == 0);
	CHECK(stat("f", &st) == 0 && st.st_size == 1);
	CHECK_ERR(open("missing", O_RDONLY), ENOENT);
	return 0;
}

static int t_names_255(void)
{
	char name[300];
	struct stat st;

	memset(name, 'n', 255);
	name[255] = 0;
	CHECK(put(name, "a", 1) == 0);
	CHECK(stat(name, &st) == 0 && st.st_size == 1);
	CHECK(count_entries(".") == 3);
	name[0] = 'm';
	CHECK(mkdir(name, 0755) == 0);
	name[255] = 'x';
	name[256] = 0;
	CHECK_ERR(open(name, O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
	return 0;
}

static int t_bigdir(void)
{
	const int n = 10000;
	char name[64];
	struct stat st;
	int i;

	CHECK(mkdir("big", 0755) == 0);
	for (i = 0; i < n; i++) {
		int fd;
		snprintf(name, sizeof(name), "big/file-with-a-longish-name-%06d", i);
		fd = open(name, O_CREAT | O_WRONLY | O_EXCL, 0644);
		CHECK(fd >= 0);
		close(fd);
	}
	CHECK(count_entries("big") == n + 2);
	for (i = 0; i < n; i += 997) {
		snprintf(name, sizeof(name), "big/file-with-a-longish-name-%06d", i);
		CHECK(stat(name, &st) == 0 && S_ISREG(st.st_mode));
	}
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "big/file-with-a-longish-name-%06d", i);
		CHECK(unlink(name) == 0);
	}
	CHECK(count_entries("big") == 2);
	CHECK(rmdir("big") == 0);
	return 0;
}

static int t_hardlinks(void)
{
	struct stat a, b;
	char buf[8];

	CHECK(mkdir("a", 0755) == 0 && mkdir("b", 0755) == 0);
	CHECK(put("a/f", "data", 4) == 0);
	CHECK(link("a/f", "b/g") == 0);
	CHECK(stat("a/f", &a) == 0 && stat("b/g", &b) == 0);
	CHECK(a.st_ino == b.st_ino && a.st_nlink == 2);
	CHECK_ERR(link("a/f", "b/g"), EEXIST);
	CHECK_ERR(link("a", "b/dirlink"), EPERM);
	CHECK(unlink("a/f") == 0);
	CHECK(stat("b/g", &b) == 0 && b.st_nlink == 1);
	CHECK(get("b/g", buf, sizeof(buf)) == 4 && !memcmp(buf, "data", 4));
	return 0;
}

static int t_rename_over(void)
{
	struct stat st, d;
	char buf[8];

	CHECK(put("x", "xx", 2) == 0 && put("y", "yyy", 3) == 0);
	CHECK(rename("x", "y") == 0);
	CHECK_ERR(stat("x", &st), ENOENT);
	CHECK(get("y", buf, sizeof(buf)) == 2);
	CHECK(mkdir("d1", 0755) == 0 && mkdir("d2", 0755) == 0 && mkdir("d3", 0755) == 0);
	CHECK(put("d3/f", "", 0) == 0);
	CHECK(rename("d1", "d2") == 0);
	CHECK_ERR(rename("d2", "d3"), ENOTEMPTY);
	CHECK_ERR(rename("y", "d3"), EISDIR);
	CHECK_ERR(rename("d2", "y"), ENOTDIR);
	CHECK(mkdir("d2/sub", 0755) == 0);
	CHECK_ERR(rename("d2", "d2/sub/inside"), EINVAL);
	CHECK(stat(".", &st) == 0 && st.st_nlink == 4);
	/* move a directory to another parent: ".." and link counts follow */
	CHECK(rename("d2/sub", "d3/sub") == 0);
	CHECK(stat("d3/sub/..", &st) == 0 && stat("d3", &d) == 0 && st.st_ino == d.st_ino);
	CHECK(d.st_nlink == 3);
	CHECK(stat("d2", &d) == 0 && d.st_nlink == 2);
	CHECK(rename("y", "y") == 0);
	return 0;
}

static int t_rename_flags(void)
{
	struct stat st, d;
	char buf[8];

	CHECK(put("p", "p", 1) == 0 && put("q", "qq", 2) == 0);
	CHECK_ERR(renameat2(AT_FDCWD, "p", AT_FDCWD, "q", RENAME_NOREPLACE), EEXIST);
	CHECK(renameat2(AT_FDCWD, "p", AT_FDCWD, "r", RENAME_NOREPLACE) == 0);
	CHECK(renameat2(AT_FDCWD, "r", AT_FDCWD, "q", RENAME_EXCHANGE) == 0);
	CHECK(get("r", buf, sizeof(buf)) == 2 && get("q", buf, sizeof(buf)) == 1);
	CHECK_ERR(renameat2(AT_FDCWD, "r", AT_FDCWD, "nothere", RENAME_EXCHANGE), ENOENT);
	CHECK_ERR(renameat2(AT_FDCWD, "r", AT_FDCWD, "q", RENAME_EXCHANGE | RENAME_NOREPLACE), EINVAL);
	/* exchange a directory and a file across parents */
	CHECK(mkdir("a", 0755) == 0 && mkdir("b", 0755) == 0 && mkdir("a/dir", 0755) == 0);
	CHECK(put("b/file", "f", 1) == 0);
	CHECK(renameat2(AT_FDCWD, "a/dir", AT_FDCWD, "b/file", RENAME_EXCHANGE) == 0);
	CHECK(stat("b/file", &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(stat("a/dir", &st) == 0 && S_ISREG(st.st_mode));
	CHECK(stat("b/file/..", &st) == 0 && stat("b", &d) == 0 && st.st_ino == d.st_ino);
	CHECK(d.st_nlink == 3 && stat("a", &d) == 0 && d.st_nlink == 2);
	return 0;
}

static int t_unlink_open(void)
{
	struct stat st;
	char buf[16];
	int fd = open("u", O_CREAT | O_RDWR, 0644);

	CHECK(fd >= 0);
	CHECK(write(fd, "before", 6) == 6);
	CHECK(unlink("u") == 0);
	CHECK_ERR(stat("u", &st), ENOENT);
	CHECK(pwrite(fd, "after", 5, 6) == 5);
	CHECK(pread(fd, buf, sizeof(buf), 0) == 11 && !memcmp(buf, "beforeafter", 11));
	CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0 && st.st_size == 11);
	CHECK(close(fd) == 0);
	return 0;
}

static int t_truncate(void)
{
	const size_t big = 3 << 20;
	unsigned char *buf = malloc(5 << 20), *ref = malloc(big);
	struct stat st;
	size_t i;
	int rc = -1;

	if (!buf || !ref)
		goto out;
	pattern(ref, big, 7);
	if (put("t", ref, big) || truncate("t", (1 << 20) + (1 << 19) + 123) ||
	    stat("t", &st) || st.st_size != (1 << 20) + (1 << 19) + 123)
		goto fail;
	if (get("t", buf, 5 << 20) != (1 << 20) + (1 << 19) + 123 || memcmp(buf, ref, (size_t)st.st_size))
		goto fail;
	if (truncate("t", 5 << 20) || get("t", buf, 5 << 20) != 5 << 20 ||
	    memcmp(buf, ref, (size_t)st.st_size))
		goto fail;
	for (i = (size_t)st.st_size; i < (5u << 20); i++)
		if (buf[i])
			goto fail;
	if (truncate("t", 0) || stat("t", &st) || st.st_size != 0 || st.st_blocks != 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	snprintf(diag, sizeof(diag), "truncate sequence failed (errno %d)", errno);
out:
	free(buf);
	free(ref);
	return rc;
}

static int t_sparse_4g(void)
{
	const off_t far = 5LL << 30;
	char buf[4096], zero[4096];
	struct stat st;
	int fd = open("s", O_CREAT | O_RDWR, 0644);

	CHECK(fd >= 0);
	memset(zero, 0, sizeof(zero));
	CHECK(pwrite(fd, "tail", 4, far) == 4);
	CHECK(pwrite(fd, "head", 4, 0) == 4);
	CHECK(fstat(fd, &st) == 0 && st.st_size == far + 4);
	CHECK(st.st_blocks < 200);
	CHECK(pread(fd, buf, 4, far) == 4 && !memcmp(buf, "tail", 4));
	CHECK(pread(fd, buf, sizeof(buf), 1 << 30) == sizeof(buf) && !memcmp(buf, zero, sizeof(buf)));
	CHECK(pread(fd, buf, sizeof(buf), 0) == sizeof(buf) && !memcmp(buf, "head", 4));
	CHECK(ftruncate(fd, (4LL << 30) + 1) == 0);
	CHECK(pread(fd, buf, 16, 4LL << 30) == 1);
	CHECK(close(fd) == 0);
	return 0;
}

static int t_append(void)
{
	char buf[16];
	int fd;

	CHECK(put("a", "12345", 5) == 0);
	fd = open("a", O_WRONLY | O_APPEND);
	CHECK(fd >= 0);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK(write(fd, "678", 3) == 3);
	close(fd);
	CHECK(get("a", buf, sizeof(buf)) == 8 && !memcmp(buf, "12345678", 8));
	return 0;
}

static int t_xattr(void)
{
	struct statvfs sv;
	char buf[65536], *big;
	size_t bigsz;
	ssize_t n;

	CHECK(put("x", "", 0) == 0);
	CHECK(setxattr("x", "user.a", "1", 1, 0) == 0);
	CHECK(setxattr("x", "user.bb", "22", 2, XATTR_CREATE) == 0);
	CHECK_ERR(setxattr("x", "user.a", "1", 1, XATTR_CREATE), EEXIST);
	CHECK_ERR(setxattr("x", "user.zz", "1", 1, XATTR_REPLACE), ENODATA);
	CHECK(setxattr("x", "user.a", "333", 3, XATTR_REPLACE) == 0);
	CHECK(getxattr("x", "user.a", buf, sizeof(buf)) == 3 && !memcmp(buf, "333", 3));
	CHECK(getxattr("x", "user.a", NULL, 0) == 3);
	CHECK_ERR(getxattr("x", "user.a", buf, 1), ERANGE);
	n = listxattr("x", buf, sizeof(buf));
	CHECK(n == (ssize_t)sizeof("user.a") + (ssize_t)sizeof("user.bb"));
	CHECK(removexattr("x", "user.a") == 0);
	CHECK_ERR(removexattr("x", "user.a"), ENODATA);
	CHECK_ERR(getxattr("x", "user.a", buf, sizeof(buf)), ENODATA);
	CHECK(setxattr("x", "trusted.t", "t", 1, 0) == 0);
	CHECK(getxattr("x", "trusted.t", buf, sizeof(buf)) == 1);
	CHECK(setxattr(".", "user.dir", "d", 1, 0) == 0);
	/* a value close to the block size limit */
	CHECK(statvfs(".", &sv) == 0);
	bigsz = sv.f_bsize - 200;
	big = malloc(bigsz);
	CHECK(big != NULL);
	pattern((unsigned char *)big, bigsz, 3);
	CHECK(setxattr("x", "user.big", big, bigsz, 0) == 0);
	n = getxattr("x", "user.big", buf, sizeof(buf));
	free(big);
	CHECK(n == (ssize_t)bigsz);
	CHECK(setxattr("x", "user.huge", buf, sv.f_bsize * 2, 0) == -1 && (errno == ENOSPC || errno == E2BIG));
	return 0;
}

static int t_symlinks(void)
{
	char target[1000], buf[1100];
	struct stat st;

	CHECK(symlink("short/target", "fast") == 0);
	CHECK(readlink("fast", buf, sizeof(buf)) == 12 && !memcmp(buf, "short/target", 12));
	memset(target, 't', 500);
	target[500] = 0;
	CHECK(symlink(target, "slow") == 0);
	CHECK(readlink("slow", buf, sizeof(buf)) == 500 && !memcmp(buf, target, 500));
	CHECK(lstat("slow", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 500);
	CHECK(put("real", "r", 1) == 0 && symlink("real", "rel") == 0);
	CHECK(stat("rel", &st) == 0 && S_ISREG(st.st_mode));
	CHECK_ERR(symlink("x", "fast"), EEXIST);
	return 0;
}

static int t_mknod(void)
{
	struct stat st;

	CHECK(mkfifo("fifo", 0600) == 0);
	CHECK(stat("fifo", &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(mknod("sock", S_IFSOCK | 0600, 0) == 0);
	CHECK(stat("sock", &st) == 0 && S_ISSOCK(st.st_mode));
	CHECK(mknod("chr", S_IFCHR | 0600, makedev(1, 3)) == 0);
	CHECK(stat("chr", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
	CHECK(mknod("blk", S_IFBLK | 0600, makedev(259, 70000)) == 0);
	CHECK(stat("blk", &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == makedev(259, 70000));
	/* the mount is nodev: opening the device node must fail */
	CHECK(open("chr", O_RDONLY) == -1);
	return 0;
}

static int t_dirs(void)
{
	struct stat st;

	CHECK(stat(".", &st) == 0 && st.st_nlink == 2);
	CHECK(mkdir("d", 0750) == 0);
	CHECK(stat("d", &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750);
	CHECK(stat(".", &st) == 0 && st.st_nlink == 3);
	CHECK_ERR(mkdir("d", 0755), EEXIST);
	CHECK(put("d/f", "", 0) == 0);
	CHECK_ERR(rmdir("d"), ENOTEMPTY);
	CHECK_ERR(rmdir("d/f"), ENOTDIR);
	CHECK_ERR(unlink("d"), EISDIR);
	CHECK(unlink("d/f") == 0 && rmdir("d") == 0);
	CHECK(stat(".", &st) == 0 && st.st_nlink == 2);
	return 0;
}

static int t_attrs(void)
{
	struct timespec ts[2] = { { 1234567890, 123456789 }, { 2000000000, 987654321 } };
	struct stat st;

	CHECK(put("f", "", 0) == 0);
	CHECK(chmod("f", 04751) == 0);
	CHECK(stat("f", &st) == 0 && (st.st_mode & 07777) == 04751);
	CHECK(chown("f", 1234, 5678) == 0);
	CHECK(stat("f", &st) == 0 && st.st_uid == 1234 && st.st_gid == 5678);
	CHECK(chown("f", 70000, 80000) == 0);
	CHECK(stat("f", &st) == 0 && st.st_uid == 70000 && st.st_gid == 80000);
	CHECK(utimensat(AT_FDCWD, "f", ts, 0) == 0);
	CHECK(stat("f", &st) == 0);
	CHECK(st.st_atim.tv_sec == ts[0].tv_sec && st.st_atim.tv_nsec == ts[0].tv_nsec);
	CHECK(st.st_mtim.tv_sec == ts[1].tv_sec && st.st_mtim.tv_nsec == ts[1].tv_nsec);
	/* beyond 2038 needs the epoch bits of the extra fields */
	ts[1].tv_sec = 4000000000LL;
	CHECK(utimensat(AT_FDCWD, "f", ts, 0) == 0);
	CHECK(stat("f", &st) == 0 && st.st_mtim.tv_sec == 4000000000LL);
	return 0;
}

static int t_statfs(void)
{
	struct statvfs a, b;
	static char buf[1 << 20];

	CHECK(statvfs(".", &a) == 0 && a.f_bsize > 0 && a.f_blocks > a.f_bfree);
	CHECK(a.f_namemax == 255);
	CHECK(put("f", buf, sizeof(buf)) == 0);
	CHECK(statvfs(".", &b) == 0 && b.f_bfree < a.f_bfree && b.f_ffree < a.f_ffree);
	return 0;
}

static int t_fsync(void)
{
	int fd = open("f", O_CREAT | O_RDWR, 0644), dfd = open(".", O_RDONLY | O_DIRECTORY);

	CHECK(fd >= 0 && dfd >= 0);
	CHECK(write(fd, "x", 1) == 1);
	CHECK(fsync(fd) == 0 && fdatasync(fd) == 0 && fsync(dfd) == 0);
	close(fd);
	close(dfd);
	return 0;
}

static int t_readdir_unlink(void)
{
	char name[32];
	struct dirent *e;
	DIR *d;
	int i, removed = 0;

	CHECK(mkdir("r", 0755) == 0);
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "r/entry%d", i);
		CHECK(put(name, "", 0) == 0);
	}
	d = opendir("r");
	CHECK(d != NULL);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "r/%.20s", e->d_name);
		CHECK(unlink(name) == 0);
		removed++;
	}
	closedir(d);
	CHECK(removed == 500);
	CHECK(rmdir("r") == 0);
	return 0;
}

static int t_bigio(void)
{
	const size_t len = 8 << 20;
	unsigned char *a = malloc(len), *b = malloc(len);
	size_t off = 0, chunk = 1;
	int fd = open("io", O_CREAT | O_RDWR | O_TRUNC, 0644), rc = -1;

	if (!a || !b || fd < 0)
		goto out;
	pattern(a, len, 11);
	while (off < len) {
		size_t n = chunk < len - off ? chunk : len - off;
		if (pwrite(fd, a + off, n, (off_t)off) != (ssize_t)n)
			goto out;
		off += n;
		chunk = chunk * 3 + 1;
		if (chunk > (2 << 20))
			chunk = 4095;
	}
	if (fsync(fd) || pread(fd, b, len, 0) != (ssize_t)len || memcmp(a, b, len))
		goto out;
	rc = 0;
out:
	if (rc)
		snprintf(diag, sizeof(diag), "8 MiB write/read-back mismatch or I/O error (errno %d)", errno);
	if (fd >= 0)
		close(fd);
	free(a);
	free(b);
	return rc;
}

static int t_permissions(void)
{
	pid_t pid;
	int status;

	CHECK(mkdir("locked", 0755) == 0 && put("locked/ro", "x", 1) == 0);
	CHECK(chmod("locked/ro", 0644) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int bad = 0;
		if (setgid(65534) || setuid(65534))
			_exit(2);
		bad |= open("locked/new", O_CREAT | O_WRONLY, 0644) != -1 || errno != EACCES;
		bad |= open("locked/ro", O_WRONLY) != -1 || errno != EACCES;
		bad |= open("locked/ro", O_RDONLY) < 0;
		bad |= chmod("locked/ro", 0777) != -1 || errno != EPERM;
		_exit(bad);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return 0;
}

static bool all_zero(const unsigned char *b, size_t n)
{
	while (n--)
		if (*b++)
			return false;
	return true;
}

static int t_fallocate(void)
{
	static unsigned char ref[1 << 20], buf[1 << 20];
	struct stat a, b;
	int fd = open("f", O_CREAT | O_RDWR, 0644);
	bool extents;

	CHECK(fd >= 0);
	pattern(ref, sizeof(ref), 5);
	CHECK(pwrite(fd, ref, sizeof(ref), 0) == (ssize_t)sizeof(ref));
	CHECK(fstat(fd, &a) == 0);
	CHECK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096 + 100, 200000) == 0);
	CHECK(fstat(fd, &b) == 0 && b.st_size == a.st_size && b.st_blocks < a.st_blocks);
	CHECK(pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	CHECK(!memcmp(buf, ref, 4196) && all_zero(buf + 4196, 200000));
	CHECK(!memcmp(buf + 204196, ref + 204196, sizeof(ref) - 204196));
	extents = fallocate(fd, 0, 2 << 20, 1 << 20) == 0;
	if (!extents) {
		CHECK(errno == EOPNOTSUPP); /* block-mapped files, as with ext4 */
		close(fd);
		return 0;
	}
	CHECK(fstat(fd, &a) == 0 && a.st_size == 3 << 20 && a.st_blocks > b.st_blocks);
	CHECK(pread(fd, buf, 1 << 20, 2 << 20) == 1 << 20 && all_zero(buf, 1 << 20));
	CHECK(fallocate(fd, FALLOC_FL_KEEP_SIZE, 3 << 20, 1 << 20) == 0);
	CHECK(fstat(fd, &b) == 0 && b.st_size == 3 << 20 && b.st_blocks > a.st_blocks);
	CHECK(fallocate(fd, FALLOC_FL_ZERO_RANGE, 500000, 100000) == 0);
	CHECK(pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	CHECK(all_zero(buf + 500000, 100000) && !memcmp(buf + 600000, ref + 600000, 1000));
	CHECK(!memcmp(buf + 400000, ref + 400000, 100000));
	CHECK(fallocate(fd, FALLOC_FL_ZERO_RANGE, (3 << 20) + 10, 5000) == 0);
	CHECK(fstat(fd, &b) == 0 && b.st_size == (3 << 20) + 5010);
	close(fd);
	return 0;
}

static int t_seek(void)
{
	const off_t far = 1 << 20;
	int fd = open("s", O_CREAT | O_RDWR, 0644);
	char blk[8192];

	CHECK(fd >= 0);
	memset(blk, 'x', sizeof(blk));
	CHECK(pwrite(fd, blk, 8192, 0) == 8192 && pwrite(fd, blk, 4096, far) == 4096);
	CHECK(lseek(fd, 0, SEEK_DATA) == 0);
	CHECK(lseek(fd, 100, SEEK_DATA) == 100);
	CHECK(lseek(fd, 0, SEEK_HOLE) == 8192);
	CHECK(lseek(fd, 9000, SEEK_DATA) == far);
	CHECK(lseek(fd, far + 10, SEEK_HOLE) == far + 4096);
	CHECK(lseek(fd, far + 4096, SEEK_DATA) == -1 && errno == ENXIO);
	CHECK(ftruncate(fd, far * 4) == 0);
	CHECK(lseek(fd, far + 4096, SEEK_HOLE) == far + 4096);
	CHECK(lseek(fd, far + 4096, SEEK_DATA) == -1 && errno == ENXIO);
	close(fd);
	return 0;
}

struct test {
	const char *name;
	int (*fn)(void);
};

static const struct test tests[] = {
	{ "create_rw", t_create_rw }, { "names_255", t_names_255 }, { "bigdir_10000", t_bigdir },
	{ "hardlinks", t_hardlinks }, { "rename_over", t_rename_over },
	{ "rename_flags", t_rename_flags }, { "unlink_open", t_unlink_open },
	{ "truncate", t_truncate }, { "sparse_4g", t_sparse_4g }, { "append", t_append },
	{ "xattr", t_xattr }, { "symlinks", t_symlinks }, { "mknod", t_mknod },
	{ "dirs", t_dirs }, { "attrs", t_attrs }, { "statfs", t_statfs }, { "fsync", t_fsync },
	{ "readdir_unlink", t_readdir_unlink }, { "bigio", t_bigio },
	{ "permissions", t_permissions }, { "fallocate", t_fallocate }, { "seek", t_seek },
};

/* TEST... runs the tests named; -TEST leaves one out (of all, when no test is named) */
static bool selected(const char *name, int argc, char **argv)
{
	bool named = false, picked = false;
	int i;

	for (i = 3; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (!strcmp(argv[i] + 1, name))
				return false;
			continue;
		}
		named = true;
		picked |= !strcmp(argv[i], name);
	}
	return !named || picked;
}

int main(int argc, char **argv)
{
	size_t i;
	int failed = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: posix DIR PREFIX [TEST | -TEST]...\n");
		return 2;
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		char dir[4096];
		int rc;

		if (!selected(tests[i].name, argc, argv))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", argv[1], tests[i].name);
		diag[0] = 0;
		rc = mkdir(dir, 0755) || chdir(dir) ? -1 : tests[i].fn();
		if (rc && !diag[0])
			snprintf(diag, sizeof(diag), "cannot enter %.300s: %s", dir, strerror(errno));
		if (chdir("/"))
			return 2;
		printf("%sok - %s/%s\n", rc ? "not " : "", argv[2], tests[i].name);
		if (rc)
			printf("# %s\n", diag);
		fflush(stdout);
		failed |= rc != 0;
	}
	return failed;
}
