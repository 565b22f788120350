/* model.h: the test filesystem shared by iomap-test-server and iomap-check:
 * the byte pattern on the device, the files and their extents. */
#ifndef IOMAP_MODEL_H
#define IOMAP_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define M_BLOCK		4096ULL
#define M_DEV_SIZE	(16ULL << 20)	/* bytes of /dev/vda the tests use */
#define M_KIB		1024ULL
#define M_MIB		(1024ULL * 1024)

enum { M_HOLE, M_MAPPED, M_UNWRITTEN };

struct m_extent {
	uint64_t off, len;
	int type;
	uint64_t addr;
};

struct m_file {
	const char *name;
	uint64_t ino, size;
	size_t next;
	struct m_extent ext[12];
};

/* "f": every kind of extent, a partial last block; "big": 8 shuffled 256 KiB
 * extents, for readahead and O_DIRECT across many mappings. */
static const struct m_file m_files[] = {
	{ "f", 2, 38000, 5, {
		{ 0, 8 * M_KIB, M_MAPPED, 1 * M_MIB },
		{ 8 * M_KIB, 4 * M_KIB, M_HOLE, 0 },
		{ 12 * M_KIB, 8 * M_KIB, M_MAPPED, 3 * M_MIB + 4 * M_KIB },
		{ 20 * M_KIB, 4 * M_KIB, M_UNWRITTEN, 5 * M_MIB },
		{ 24 * M_KIB, 16 * M_KIB, M_MAPPED, 6 * M_MIB },
	} },
	{ "big", 3, 2 * M_MIB, 8, {
#define M_BIG(i) { (i) * 256 * M_KIB, 256 * M_KIB, M_MAPPED, \
		   8 * M_MIB + (((i) * 5) % 8) * 256 * M_KIB }
		M_BIG(0), M_BIG(1), M_BIG(2), M_BIG(3),
		M_BIG(4), M_BIG(5), M_BIG(6), M_BIG(7),
	} },
};
#define M_NFILES (sizeof(m_files) / sizeof(m_files[0]))

/* "w": a writable file, empty at mount; the server allocates its blocks in
 * [M_ALLOC_BASE, M_DEV_SIZE) and keeps it below M_W_MAX bytes. */
#define M_W_NAME	"w"
#define M_W_INO		4ULL
#define M_W_MAX		(1ULL << 20)
#define M_ALLOC_BASE	(12ULL << 20)

static inline uint8_t m_dev_byte(uint64_t a)
{
	uint64_t w = ((a >> 3) + 1) * 0x9E3779B97F4A7C15ULL ^ 0xE4CE11E4CE11ULL;

	return (uint8_t)(w >> ((a & 7) * 8));
}

/* The extent of f covering off, or NULL beyond the last one (a hole). */
static inline const struct m_extent *m_find(const struct m_file *f, uint64_t off)
{
	for (size_t i = 0; i < f->next; i++)
		if (off >= f->ext[i].off && off < f->ext[i].off + f->ext[i].len)
			return &f->ext[i];
	return NULL;
}

/* Expected content of f at [off, off+len), all inside the file. */
static inline void m_expect(const struct m_file *f, uint64_t off, size_t len, uint8_t *buf)
{
	for (size_t i = 0; i < len; i++) {
		const struct m_extent *e = m_find(f, off + i);

		buf[i] = e && e->type == M_MAPPED ? m_dev_byte(e->addr + off + i - e->off) : 0;
	}
}

static inline const struct m_file *m_lookup(const char *name)
{
	for (size_t i = 0; i < M_NFILES; i++)
		if (!strcmp(m_files[i].name, name))
			return &m_files[i];
	return NULL;
}

static inline const struct m_file *m_by_ino(uint64_t ino)
{
	for (size_t i = 0; i < M_NFILES; i++)
		if (m_files[i].ino == ino)
			return &m_files[i];
	return NULL;
}

#endif
