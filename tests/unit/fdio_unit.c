/* tests/unit/fdio_unit.c: unit tests of the server's io_manager
 * (server/fdio.c) on a temporary file: single-block writes wait in the
 * write-back cache until ec_fdio_write_back(), a flush or close; a block
 * evicted from its slot, a larger read or write and a byte-range write see
 * (or write out) what waits; a read never replaces a waiting block;
 * discarded blocks are never written. */
#include "../../server/fdio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BS	1024
#define SLOTS	4096	/* EC_CACHE_SLOTS: block b and b + SLOTS share a slot */

static int failed;

static void report(const char *name, int pass, const char *detail)
{
	printf("%sok - fdio/%s\n", pass ? "" : "not ", name);
	if (!pass)
		printf("# %s\n", detail);
	failed |= !pass;
}

/* Is block b of the file (not the cache) filled with byte v? */
static int on_disk(int fd, unsigned long long b, int v)
{
	char buf[BS];

	if (pread(fd, buf, BS, (off_t)(b * BS)) != BS)
		return 0;
	for (int i = 0; i < BS; i++)
		if (buf[i] != (char)v)
			return 0;
	return 1;
}

static int filled(const char *buf, size_t len, int v)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != (char)v)
			return 0;
	return 1;
}

static errcode_t put(io_channel ch, unsigned long long b, int v)
{
	char buf[BS];

	memset(buf, v, BS);
	return io_channel_write_blk64(ch, b, 1, buf);
}

int main(void)
{
	char name[32], tmpl[] = "/tmp/fdio_unit.XXXXXX", buf[4 * BS];
	int fd = mkstemp(tmpl);
	io_channel ch;
	errcode_t err;

	if (fd < 0 || unlink(tmpl) || ftruncate(fd, 2 * SLOTS * BS)) {
		perror("fdio_unit: temporary file");
		return 1;
	}
	ec_fdio_name(fd, 0, name, sizeof(name));
	err = ec_fdio_manager->open(name, IO_FLAG_RW, &ch);
	if (!err)
		err = io_channel_set_blksize(ch, BS);
	if (err) {
		fprintf(stderr, "fdio_unit: open %s: %ld\n", name, (long)err);
		return 1;
	}

	err = put(ch, 5, 'a') || put(ch, 5, 'b') || put(ch, 6, 'c');
	report("write-waits", !err && on_disk(fd, 5, 0) && on_disk(fd, 6, 0),
	       "a single-block write reached the file before write-back");
	err = io_channel_read_blk64(ch, 5, 1, buf);
	report("read-sees-waiting", !err && filled(buf, BS, 'b'),
	       "a read of a waiting block did not return its last write");
	err = io_channel_read_blk64(ch, 4, 4, buf);
	report("large-read-sees-waiting", !err && filled(buf, BS, 0) && filled(buf + BS, BS, 'b') &&
	       filled(buf + 2 * BS, BS, 'c') && filled(buf + 3 * BS, BS, 0),
	       "a 4-block read across waiting blocks returned what the file held");
	err = io_channel_read_blk64(ch, 5 + SLOTS, 1, buf);
	report("read-keeps-waiting", !err && !ec_fdio_write_back(ch) && on_disk(fd, 5, 'b'),
	       "a read of another block in a waiting block's slot lost that block");

	err = put(ch, 7, 'd') || put(ch, 7 + SLOTS, 'e');
	report("evict-writes", !err && on_disk(fd, 7, 'd') && on_disk(fd, 7 + SLOTS, 0),
	       "a waiting block replaced in its slot was not written first");
	err = ec_fdio_write_back(ch);
	report("write-back", !err && on_disk(fd, 7 + SLOTS, 'e') && on_disk(fd, 6, 'c'),
	       "ec_fdio_write_back left a block unwritten");

	memset(buf, 'f', 2 * BS);
	err = put(ch, 10, 'g') || put(ch, 11, 'h') || io_channel_write_blk64(ch, 10, 2, buf);
	report("large-write-wins", !err && !ec_fdio_write_back(ch) && on_disk(fd, 10, 'f') &&
	       on_disk(fd, 11, 'f') && !io_channel_read_blk64(ch, 11, 1, buf + 2 * BS) &&
	       filled(buf + 2 * BS, BS, 'f'),
	       "a waiting block overwrote (or hid) a later 2-block write");

	err = put(ch, 12, 'i') || io_channel_write_byte(ch, 12 * BS + 100, 10, "jjjjjjjjjj");
	report("byte-write-keeps-rest", !err && !ec_fdio_write_back(ch) &&
	       pread(fd, buf, BS, 12 * BS) == BS && filled(buf, 100, 'i') &&
	       filled(buf + 100, 10, 'j') && filled(buf + 110, BS - 110, 'i'),
	       "a byte-range write inside a waiting block lost one of the two");

	err = put(ch, 15, 'n') || put(ch, 16, 'o') || put(ch, 17, 'p');
	ec_fdio_discard(ch, 15, 1);
	ec_fdio_discard(ch, 17, 1);
	report("discard-drops", !err && !ec_fdio_write_back(ch) && on_disk(fd, 15, 0) &&
	       on_disk(fd, 16, 'o') && on_disk(fd, 17, 0) &&
	       !io_channel_read_blk64(ch, 15, 1, buf) && filled(buf, BS, 0),
	       "a discarded dirty block reached the file, or its neighbour did not, or a read "
	       "still saw the discarded copy");

	err = put(ch, 20, 'k') || io_channel_flush(ch);
	report("flush-writes", !err && on_disk(fd, 20, 'k'), "flush left a waiting block");
	err = put(ch, 21, 'l') || io_channel_close(ch);
	report("close-writes", !err && on_disk(fd, 21, 'l'), "close left a waiting block");
	close(fd);
	return failed;
}
