/* fuzz/journal.c: libFuzzer target: journal replay (server/journal.c) alone.
 * The input is the content of an internal journal: it is written over the
 * journal of a small ext4 image whose journal needs recovery (made by
 * fuzz/seeds.sh: $EC_FUZZ_JOURNAL_BASE, by default seeds/journal-base next
 * to bin/ of this program), which is then opened as a read-write mount
 * opens it (server/fsopen.c: replay, reopen, checks) and closed. */
#include "fsrun.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint8_t *base;		/* the image */
static size_t base_size;
static blk64_t *jblocks;	/* its journal's blocks, in journal order */
static blk64_t njblocks;
static unsigned int bs;

__attribute__((noreturn)) static void die(const char *what, const char *why)
{
	fprintf(stderr, "fuzz/journal: %s: %s\n", what, why);
	exit(1);
}

static void load_base(const char *path)
{
	FILE *fp = fopen(path, "rb");
	long n;

	if (!fp || fseek(fp, 0, SEEK_END) || (n = ftell(fp)) <= 0 || fseek(fp, 0, SEEK_SET))
		die(path, "cannot read the base image (make fuzz-build makes it)");
	base_size = (size_t)n;
	base = malloc(base_size);
	if (!base || fread(base, 1, base_size, fp) != base_size)
		die(path, "cannot read the base image");
	fclose(fp);
}

/* Where the journal's blocks are, from the base image itself. */
static void find_journal(const char *path)
{
	ext2_filsys fs;
	blk64_t i;
	errcode_t e = ext2fs_open(path, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	struct ext2_inode in;

	if (!e)
		e = ext2fs_read_inode(fs, fs->super->s_journal_inum, &in);
	if (e)
		die(path, error_message(e));
	bs = fs->blocksize;
	njblocks = EXT2_I_SIZE(&in) / bs;
	jblocks = calloc(njblocks, sizeof(*jblocks));
	for (i = 0; jblocks && i < njblocks && !e; i++)
		e = ext2fs_bmap2(fs, fs->super->s_journal_inum, NULL, NULL, 0, i, NULL, &jblocks[i]);
	if (!jblocks || e)
		die(path, "cannot map the journal");
	ext2fs_close_free(&fs);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[PATH_MAX], exe[PATH_MAX];
	const char *env = getenv("EC_FUZZ_JOURNAL_BASE");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)argc, (void)argv;
	if (env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		if (n <= 0)
			die("/proc/self/exe", "unreadable");
		exe[n] = 0;
		snprintf(path, sizeof(path), "%s/../seeds/journal-base", dirname(exe));
	}
	load_base(path);
	find_journal(path);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fz_memfd(base, base_size);
	struct fz_fs f;
	blk64_t i;

	if (fd < 0)
		return 0;
	for (i = 0; i < njblocks && i * bs < size; i++) {
		size_t n = size - i * bs < bs ? size - i * bs : bs;
		if (pwrite(fd, data + i * bs, n, (off_t)(jblocks[i] * bs)) != (ssize_t)n)
			abort();
	}
	if (!fz_open(&f, fd))
		fz_close(&f);
	close(fd);
	return 0;
}
