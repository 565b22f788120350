/* proto/fuse_iomap.h: the FUSE iomap UAPI of our kernel series (DESIGN.md
 * section 2), the one definition for the helper, the server, the sandbox and
 * the tests; the host's linux/fuse.h predates it. */
#ifndef EC_FUSE_IOMAP_H
#define EC_FUSE_IOMAP_H

#include <linux/fuse.h>
#include <stdint.h>
#include <sys/ioctl.h>

#define FUSE_IOMAP_MINOR	99	/* experimental, as the prototype's */
#define FUSE_IOMAP_INIT		(1ULL << 43)
#define FUSE_ATTR_EXCLUSIVE	(1 << 2)
#define FUSE_ATTR_IOMAP		(1 << 3)

#define FUSE_IOMAP_IOEND_OP	4093
#define FUSE_IOMAP_BEGIN_OP	4094
#define FUSE_IOMAP_END_OP	4095

#define FUSE_IOMAP_TYPE_HOLE		0
#define FUSE_IOMAP_TYPE_DELALLOC	1
#define FUSE_IOMAP_TYPE_MAPPED		2
#define FUSE_IOMAP_TYPE_UNWRITTEN	3
#define FUSE_IOMAP_TYPE_INLINE		4
#define FUSE_IOMAP_TYPE_PURE_OVERWRITE	255	/* write mapping: same as read */
#define FUSE_IOMAP_F_WANT_IOMAP_END	(1U << 12)
#define FUSE_IOMAP_NULL_ADDR		(~0ULL)
#define FUSE_IOMAP_OP_WRITE		(1U << 0)
#define FUSE_IOMAP_OP_ZERO		(1U << 1)
#define FUSE_IOMAP_OP_FAULT		(1U << 3)
#define FUSE_IOMAP_OP_WRITEBACK		(1U << 31)
#define FUSE_IOMAP_IOEND_UNWRITTEN	(1U << 1)
#define FUSE_IOMAP_IOEND_DIRECT		(1U << 3)
#define FUSE_IOMAP_IOEND_APPEND		(1U << 4)
#define FUSE_IOMAP_IOEND_WRITEBACK	(1U << 5)

struct fuse_iomap_io {
	uint64_t offset, length, addr;
	uint16_t type, flags;
	uint32_t dev;
};

struct fuse_iomap_begin_in {
	uint32_t opflags, reserved;
	uint64_t attr_ino, pos, count;
};

struct fuse_iomap_begin_out {
	struct fuse_iomap_io read, write;
};

struct fuse_iomap_end_in {
	uint32_t opflags, reserved;
	uint64_t attr_ino, pos, count;
	int64_t written;
	struct fuse_iomap_io map;
};

struct fuse_iomap_ioend_in {
	uint32_t flags;
	int32_t error;
	uint64_t attr_ino, pos, new_addr, written;
	uint32_t dev, pad;
};

struct fuse_iomap_ioend_out {
	uint64_t newsize;
};

#ifndef FUSE_DEV_IOC_BACKING_OPEN
struct fuse_backing_map {
	int32_t fd;
	uint32_t flags;
	uint64_t padding;
};
#define FUSE_DEV_IOC_BACKING_OPEN	_IOW(229, 1, struct fuse_backing_map)
#define FUSE_DEV_IOC_BACKING_CLOSE	_IOW(229, 2, uint32_t)
#endif
#define FUSE_BACKING_TYPE_IOMAP		1
#define FUSE_DEV_IOC_ADD_IOMAP		_IO(229, 101)

_Static_assert(sizeof(struct fuse_iomap_io) == 32, "fuse_iomap_io");
_Static_assert(sizeof(struct fuse_iomap_begin_in) == 32, "begin_in");
_Static_assert(sizeof(struct fuse_iomap_begin_out) == 64, "begin_out");
_Static_assert(sizeof(struct fuse_iomap_end_in) == 72, "end_in");
_Static_assert(sizeof(struct fuse_iomap_ioend_in) == 48, "ioend_in");

#endif
