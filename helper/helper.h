/* helper/helper.h: what the parts of mount.fuse.ext4 share: exit codes (those of
 * mount(8)), failure and verbose reporting, and the pieces of one mount. */
#ifndef EC_HELPER_H
#define EC_HELPER_H

#include <stdbool.h>
#include <stdint.h>

#include "../proto/proto.h"

enum {
	EXIT_USAGE = 1,		/* bad invocation, unknown option, not allowed */
	EXIT_SYSTEM = 2,	/* /dev/fuse, loop devices, the server socket */
	EXIT_MOUNT = 32,	/* source unusable, refused by the server, mount failed */
};

extern bool helper_verbose;

/* Prints "mount.fuse.ext4: MESSAGE" to stderr and exits with code. */
void helper_fail(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
/* Prints "mount.fuse.ext4: MESSAGE" to stderr if -v was given. */
void helper_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The -o list, split (options.c). */
struct helper_opts {
	unsigned long msflags;			/* MS_* for mount(2) */
	bool ro;
	char server[PROTO_MAX_STR + 1];		/* options for the server */
};
/* Adds a comma-separated list; unknown options are fatal unless sloppy (-s). */
void helper_parse_options(struct helper_opts *o, const char *list, bool sloppy);

/* Opens SOURCE (a loop device for a regular file) and checks the ext2 magic (source.c). */
int helper_open_source(const char *source, bool ro);

/* /dev/fuse with the iomap bit if the kernel grants it (kmount.c). */
int helper_open_fuse(bool *iomap);
/* Mounts fusefd on the directory mntfd (named mnt in messages). */
void helper_mount(const char *source, const char *type, int mntfd, const char *mnt,
		  int fusefd, unsigned long msflags, uint32_t verdict);

/* Server connection (client.c): connect and check the peer; send the request;
 * get the verdict (fatal unless ok; returns its flags); send SERVE (0 or -1). */
int helper_connect(void);
uint32_t helper_request(int sock, int fusefd, int devfd, uint32_t flags,
			const char *options, const char *source);
int helper_serve(int sock);

#endif
