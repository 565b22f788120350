/* wshadow.h: the expected content of the writable file "w" of the iomap
 * tests (a shadow copy in memory, zero past its size) and the checks of w
 * against it: through a file descriptor, and on the raw device at the
 * addresses FIEMAP reports. Shared by iomap-check and iomap-fsx. */
#ifndef IOMAP_WSHADOW_H
#define IOMAP_WSHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct wshadow {
	uint64_t size;
	uint8_t data[M_W_MAX];
};

/* The reason of the last failed check; fail() sets it and returns false. */
extern char why[512];
bool fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "ENAME (description)" of an errno */
const char *err_name(int e);
/* open MNT/NAME, or MNT/w */
int open_file(const char *mnt, const char *name, int flags);
int open_w(const char *mnt, int flags);
/* Empty the page cache (all of it); 0 or -1. */
int drop_caches(void);

/* A recognisable pattern for w at [off, off + len), nonzero, per generation */
void sh_pattern(uint8_t *buf, uint64_t off, size_t len, int gen);
/* pwrite all of buf to fd (w) at off, and into the shadow */
bool sh_pwrite(struct wshadow *sh, int fd, const uint8_t *buf, uint64_t off, size_t len);
void sh_write(struct wshadow *sh, uint64_t off, const uint8_t *buf, size_t len);
/* Truncate, or fallocate without FALLOC_FL_KEEP_SIZE: set the size. */
void sh_resize(struct wshadow *sh, uint64_t size);
/* Hole punch or zeroed range: zeroes inside the file (and w's limit). */
void sh_zero(struct wshadow *sh, uint64_t off, uint64_t len);

/* buf holds w at [off, off + len), all below M_W_MAX: compare. */
bool sh_compare(const struct wshadow *sh, const uint8_t *buf, uint64_t off,
		size_t len, const char *what);
/* pread fd at off for len into buf and compare, EOF included. */
bool sh_check_read(const struct wshadow *sh, int fd, uint64_t off, size_t len,
		   uint8_t *buf, const char *what);
/* A number "KEY=N" in the extended attribute NAME of fd, or -1 */
long long xattr_number(int fd, const char *name, const char *key);
/* The same in what the server says of w (user.iomap.state) */
long long server_state(int fd, const char *key);
/* Read all of w (and past EOF) through fd and compare. */
bool sh_check_file(const struct wshadow *sh, int fd, const char *what);
/* Every extent FIEMAP reports for fd (w) read on dfd (the device, opened
 * O_DIRECT) equals the shadow, whole blocks, so zeroes past EOF too;
 * unwritten extents must be zero in the shadow, and no data may lie outside
 * the written extents. *mapped (if not NULL) gets the written bytes. The
 * extents must lie where iomap-test-server allocates, unless sh_any_layout
 * (another server: anywhere on the device). */
extern bool sh_any_layout;
bool sh_check_raw(const struct wshadow *sh, int fd, int dfd, uint64_t *mapped);

#endif
