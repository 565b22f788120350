/* wshadow.c: the shadow copy of "w" and the checks of w against it (see
 * wshadow.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "wshadow.h"

char why[512];

bool fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return false;
}

const char *err_name(int e)
{
	static char b[64];

	snprintf(b, sizeof(b), "%s (%s)", strerrorname_np(e) ?: "?", strerror(e));
	return b;
}

int open_file(const char *mnt, const char *name, int flags)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	return open(path, flags);
}

int open_w(const char *mnt, int flags)
{
	return open_file(mnt, M_W_NAME, flags);
}

int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int r = fd < 0 || write(fd, "3\n", 2) != 2;

	if (fd >= 0)
		close(fd);
	return r ? -1 : 0;
}

void sh_pattern(uint8_t *buf, uint64_t off, size_t len, int gen)
{
	for (size_t i = 0; i < len; i++, off++)
		buf[i] = (uint8_t)((off * 131 + (off >> 9) * 7 + gen * 29) ^ 0x5a) | 1;
}

bool sh_pwrite(struct wshadow *sh, int fd, const uint8_t *buf, uint64_t off, size_t len)
{
	bool direct = fcntl(fd, F_GETFL) & O_DIRECT;
	ssize_t n = pwrite(fd, buf, len, off);

	if (n != (ssize_t)len)
		return fail("%s pwrite(%zu @ %llu) = %zd: %s", direct ? "O_DIRECT" : "buffered",
			    len, (unsigned long long)off, n, n < 0 ? strerror(errno) : "short");
	sh_write(sh, off, buf, len);
	return true;
}

void sh_write(struct wshadow *sh, uint64_t off, const uint8_t *buf, size_t len)
{
	memcpy(sh->data + off, buf, len);
	if (off + len > sh->size)
		sh->size = off + len;
}

void sh_resize(struct wshadow *sh, uint64_t size)
{
	if (size < sh->size)
		memset(sh->data + size, 0, sh->size - size);
	sh->size = size;
}

void sh_zero(struct wshadow *sh, uint64_t off, uint64_t len)
{
	uint64_t end = off + len < sh->size ? off + len : sh->size;

	if (off < end)
		memset(sh->data + off, 0, end - off);
}

bool sh_compare(const struct wshadow *sh, const uint8_t *buf, uint64_t off,
		size_t len, const char *what)
{
	size_t i = 0, end;

	while (i < len && buf[i] == sh->data[off + i])
		i++;
	if (i == len)
		return true;
	/* how far the difference goes: whole blocks lost show as a run */
	for (end = i + 1; end < len && buf[end] != sh->data[off + end]; end++)
		;
	return fail("%s: byte %llu of w is 0x%02x, want 0x%02x (%zu bytes differ from there; "
		    "size %llu)", what, (unsigned long long)(off + i), buf[i], sh->data[off + i],
		    end - i, (unsigned long long)sh->size);
}

bool sh_check_read(const struct wshadow *sh, int fd, uint64_t off, size_t len,
		   uint8_t *buf, const char *what)
{
	size_t want = off >= sh->size ? 0 : (sh->size - off < len ? sh->size - off : len);
	ssize_t n = pread(fd, buf, len, off);

	if (n < 0)
		return fail("%s: pread(%zu @ %llu): %s", what, len, (unsigned long long)off,
			    strerror(errno));
	if ((size_t)n != want)
		return fail("%s: pread(%zu @ %llu) returned %zd, want %zu", what, len,
			    (unsigned long long)off, n, want);
	return sh_compare(sh, buf, off, want, what);
}

/* A number from the server's description of w, or -1 */
long long server_state(int fd, const char *key)
{
	return xattr_number(fd, "user.iomap.state", key);
}

long long xattr_number(int fd, const char *name, const char *key)
{
	char buf[512], *p;
	size_t klen = strlen(key);
	ssize_t n = fgetxattr(fd, name, buf, sizeof(buf) - 1);

	if (n < 0)
		return -1;
	buf[n] = 0;
	for (p = buf; (p = strstr(p, key)); p += klen)
		if ((p == buf || p[-1] == ' ') && p[klen] == '=')
			return atoll(p + klen + 1);
	return -1;
}

bool sh_check_file(const struct wshadow *sh, int fd, const char *what)
{
	uint8_t *buf;
	bool ok;

	if (posix_memalign((void **)&buf, 4096, M_W_MAX + 4096))
		return fail("no memory");
	ok = sh_check_read(sh, fd, 0, M_W_MAX + 4096, buf, what);
	free(buf);
	return ok;
}

/* No byte of the shadow in [from, to) may be nonzero: it is not on disk. */
static bool sh_zero_between(const struct wshadow *sh, uint64_t from, uint64_t to,
			    const char *what)
{
	for (uint64_t i = from; i < to && i < M_W_MAX; i++)
		if (sh->data[i])
			return fail("byte %llu of w is 0x%02x but lies in %s",
				    (unsigned long long)i, sh->data[i], what);
	return true;
}

bool sh_any_layout;

bool sh_check_raw(const struct wshadow *sh, int fd, int dfd, uint64_t *mapped)
{
	struct { struct fiemap fm; struct fiemap_extent fe[256]; } r;
	uint64_t done = 0, total = 0;
	uint8_t *buf;
	bool ok = true;

	if (posix_memalign((void **)&buf, 4096, M_W_MAX))
		return fail("no memory");
	memset(&r, 0, sizeof(r));
	r.fm.fm_length = FIEMAP_MAX_OFFSET;
	r.fm.fm_extent_count = 256;
	if (ioctl(fd, FS_IOC_FIEMAP, &r.fm))
		ok = fail("FS_IOC_FIEMAP w: %s", strerror(errno));
	for (unsigned int i = 0; ok && i < r.fm.fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &r.fe[i];

		ok = sh_zero_between(sh, done, e->fe_logical, "a hole");
		if (!ok)
			break;
		if ((!sh_any_layout && (e->fe_physical < M_ALLOC_BASE ||
					e->fe_physical + e->fe_length > M_DEV_SIZE)) ||
		    e->fe_logical + e->fe_length > M_W_MAX)
			ok = fail("extent %u: logical %llu physical %llu length %llu", i,
				  (unsigned long long)e->fe_logical,
				  (unsigned long long)e->fe_physical,
				  (unsigned long long)e->fe_length);
		else if (e->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
			ok = sh_zero_between(sh, e->fe_logical, e->fe_logical + e->fe_length,
					     "an unwritten extent");
		else if (pread(dfd, buf, e->fe_length, e->fe_physical) != (ssize_t)e->fe_length)
			ok = fail("pread of the device: %s", strerror(errno));
		else
			ok = sh_compare(sh, buf, e->fe_logical, e->fe_length, "raw device");
		if (!(e->fe_flags & FIEMAP_EXTENT_UNWRITTEN))
			total += e->fe_length;
		done = e->fe_logical + e->fe_length;
	}
	if (ok)
		ok = sh_zero_between(sh, done, sh->size, "a hole at the end");
	if (mapped)
		*mapped = total;
	free(buf);
	return ok;
}
