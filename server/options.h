/* server/options.h: the -o mount option set of ext4cell-server and its parser. */
#ifndef EC_OPTIONS_H
#define EC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Values match EXT2_ERRORS_* in the superblock; DEFAULT means "use s_errors". */
enum ec_errors {
	EC_ERRORS_DEFAULT = 0,
	EC_ERRORS_CONTINUE = 1,
	EC_ERRORS_RO = 2,
	EC_ERRORS_PANIC = 3,
};

/* iomap=: auto (when the kernel offers it and the connection was marked),
 * on (the mount fails without it), off (classic FUSE). */
enum ec_iomap {
	EC_IOMAP_AUTO = 0,
	EC_IOMAP_ON = 1,
	EC_IOMAP_OFF = 2,
};

/* journal=: auto (journaled writes where the image has a journal), on (the
 * mount fails without one), off (writes go home directly, as fuse2fs). */
enum ec_journal {
	EC_JOURNAL_AUTO = 0,
	EC_JOURNAL_ON = 1,
	EC_JOURNAL_OFF = 2,
};

#define EC_COMMIT_DEFAULT 5	/* seconds, as ext4 */
#define EC_COMMIT_MAX 300

struct ec_options {
	bool ro;		/* ro (default rw) */
	bool kernel;		/* allow_other + default_permissions */
	bool allow_other;
	bool fakeroot;		/* no permission checks at all */
	bool norecovery;	/* do not replay the journal (forces ro) */
	bool debug;		/* log every request */
	bool flush;		/* a close after a change syncs everything (media) */
	enum ec_errors errors;
	enum ec_iomap iomap;
	enum ec_journal journal;
	unsigned commit;	/* commit=: seconds between commits, 0 = default */
	bool has_uid, has_gid;	/* uid=/gid=: owner shown for every inode */
	uint32_t uid, gid;
};

/* Parses a comma-separated -o list into *o (may be called repeatedly; later
 * options override earlier ones). Returns 0, or -1 with a message in err. */
int ec_options_parse(struct ec_options *o, const char *list, char *err, size_t errlen);

#endif
