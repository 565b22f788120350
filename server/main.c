/* server/main.c: command line of ext4cell-server: mount an image or device
 * by itself, or (--fd-mode) serve a /dev/fuse fd and a device fd it was given. */
#include "conn.h"
#include "fsopen.h"
#include "log.h"
#include "notify.h"
#include "printable.h"
#include "session.h"

#include <errno.h>
#include <ext2fs/ext2_err.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "powercut.h"
#include "../seccomp/sandbox.h"

static const char usage[] =
"usage: ext4cell-server [-f] [-o OPTIONS] DEVICE|IMAGE MOUNTPOINT\n"
"       ext4cell-server --fd-mode --fuse-fd=N --dev-fd=M [--dev-name=NAME] [-o OPTIONS]\n"
"       ext4cell-server --socket    (socket-activated by ext4cell.socket)\n"
"\n"
"Serves an ext2, ext3 or ext4 filesystem over FUSE without the kernel's ext4\n"
"driver. The first form opens DEVICE, mounts it on MOUNTPOINT and serves it in\n"
"the foreground until it is unmounted. The second serves an already-mounted\n"
"/dev/fuse file descriptor N with the already-open device descriptor M.\n"
"Before reading the image the server enters its sandbox (SECURITY.md); it then\n"
"cannot unmount: stopped by a signal, it leaves MOUNTPOINT to umount.\n"
"\n"
"  -o OPTIONS       comma-separated mount options (below); may be repeated\n"
"  -f, --foreground accepted for compatibility; the server always stays in the\n"
"                   foreground\n"
"  --fd-mode        serve inherited descriptors instead of mounting\n"
"  --fuse-fd=N      the /dev/fuse descriptor (fd mode)\n"
"  --dev-fd=M       the device descriptor, opened read-write or read-only (fd mode)\n"
"  --dev-name=NAME  name of the device in messages (fd mode)\n"
"  --socket         take the fds, the options and the device name from\n"
"                   mount.fuse.ext4 on the connection passed as fd 3 (LISTEN_FDS)\n"
"  --print-seccomp  print the seccomp allowlist of each mode\n"
"  --no-sandbox     for debugging only: serve without the sandbox\n"
"  -h, --help       this text\n"
"  -V, --version    version\n"
"\n"
"Mount options:\n"
"  ro, rw           read-only, read-write (default rw)\n"
"  errors=continue|remount-ro|panic\n"
"                   what to do on finding corruption (default: the superblock's)\n"
"  kernel           allow_other and default_permissions: the kernel checks\n"
"                   permissions as for a kernel ext4 mount\n"
"  allow_other      let other users access the mount\n"
"  fakeroot         no permission checks at all\n"
"  norecovery       do not replay the journal; forces ro\n"
"  uid=N, gid=N     show every file as owned by user N / group N\n"
"  iomap=auto|on|off\n"
"                   FUSE iomap on a connection mount.fuse.ext4 marked: when the\n"
"                   kernel offers it (auto, default), required (on), never (off)\n"
"  flush            closing a file after a change writes everything back and\n"
"                   syncs the device (removable media: FUSE never passes sync(2)\n"
"                   on to the server)\n"
"  journal=auto|on|off\n"
"                   journaled writes: every change reaches the image through its\n"
"                   jbd2 journal, so a power cut leaves a consistent filesystem\n"
"                   (auto, default: where the image has a journal; on: the mount\n"
"                   fails without one; off: changes go home directly)\n"
"  commit=N         commit the journal every N seconds (default 5, as ext4), and\n"
"                   at fsync, at a close with flush, and at unmount\n"
"  debug            log every FUSE request\n"
"  acl, user_xattr, nodev, nosuid, noexec, noatime, relatime, defaults\n"
"                   accepted and ignored (always on, or the kernel's business)\n";

struct cli {
	struct ec_options opt;
	bool fd_mode, no_sandbox;
	bool iomap_marked;		/* the helper marked the connection (--socket) */
	int fuse_fd, dev_fd, conn;	/* conn: helper connection (--socket) or -1 */
	const char *dev, *mnt, *dev_name;
};

static int parse_fd(const char *s, int *fd)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > INT_MAX)
		return -1;
	*fd = (int)v;
	return 0;
}

/* Returns 0 to go on, 1 to exit successfully, -1 on a usage error (printed). */
static int parse_cli(int argc, char **argv, struct cli *cl)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "fd-mode", no_argument, NULL, 'M' },
		{ "fuse-fd", required_argument, NULL, 'F' },
		{ "dev-fd", required_argument, NULL, 'D' },
		{ "dev-name", required_argument, NULL, 'N' },
		{ "print-seccomp", no_argument, NULL, 'P' },
		{ "no-sandbox", no_argument, NULL, 'U' },
		{ "socket", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int ch;

	while ((ch = getopt_long(argc, argv, "hVfo:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'V':
			puts("ext4cell-server 0.1");
			return 1;
		case 'f':
			break;
		case 'o':
			if (ec_options_parse(&cl->opt, optarg, err, sizeof(err))) {
				ec_log(EC_LOG_ERR, "ext4cell-server: %s\n", err);
				return -1;
			}
			break;
		case 'M':
			cl->fd_mode = true;
			break;
		case 'F':
		case 'D':
			if (parse_fd(optarg, ch == 'F' ? &cl->fuse_fd : &cl->dev_fd)) {
				ec_log(EC_LOG_ERR, "ext4cell-server: bad descriptor number '%s'\n", optarg);
				return -1;
			}
			break;
		case 'N':
			cl->dev_name = optarg;
			break;
		case 'P':
			ext4cell_sandbox_print(stdout, EXT4CELL_SANDBOX_CLASSIC);
			ext4cell_sandbox_print(stdout, EXT4CELL_SANDBOX_IOMAP);
			return 1;
		case 'U':
			cl->no_sandbox = true;
			break;
		case 'S':
			cl->conn = ec_conn_listen_fd(err, sizeof(err));
			if (cl->conn < 0) {
				ec_log(EC_LOG_ERR, "ext4cell-server: %s\n", err);
				return -1;
			}
			break;
		default:
			ec_log(EC_LOG_ERR, "%s", usage);
			return -1;
		}
	}
	if (cl->conn >= 0) {
		if (optind != argc || cl->fd_mode) {
			ec_log(EC_LOG_ERR, "ext4cell-server: --socket takes no other arguments\n");
			return -1;
		}
		return 0;
	}
	if (cl->fd_mode) {
		if (optind != argc || cl->fuse_fd < 0 || cl->dev_fd < 0) {
			ec_log(EC_LOG_ERR, "ext4cell-server: --fd-mode needs --fuse-fd and --dev-fd "
			       "and no other arguments\n");
			return -1;
		}
		return 0;
	}
	if (argc - optind != 2) {
		ec_log(EC_LOG_ERR, "%s", usage);
		return -1;
	}
	cl->dev = argv[optind];
	cl->mnt = argv[optind + 1];
	return 0;
}

/* Called once the server holds every fd it needs and before it reads the
 * image; a server that may use iomap may also register its device. */
static int enter_sandbox(bool no_sandbox, bool iomap)
{
	char err[256];

	if (no_sandbox) {
		ec_log(EC_LOG_WARNING, "ext4cell-server: warning: --no-sandbox: no seccomp "
		       "filter, capabilities kept; for debugging only\n");
		return 0;
	}
	if (ext4cell_sandbox_enter(iomap ? EXT4CELL_SANDBOX_IOMAP : EXT4CELL_SANDBOX_CLASSIC, err,
				   sizeof(err))) {
		ec_log(EC_LOG_ERR, "ext4cell-server: sandbox: %s\n", err);
		return -1;
	}
	return 0;
}

/* Socket mode: the helper's options and fds arrive on the connection. */
static int take_request(struct cli *cl)
{
	struct proto_msg *m = malloc(sizeof(*m));
	char err[512];
	int rc;

	if (!m)
		return -1;
	rc = ec_conn_request(cl->conn, m, err, sizeof(err));
	if (!rc && ec_options_parse(&cl->opt, m->options, err, sizeof(err))) {
		char reason[PROTO_MAX_STR + 1];

		snprintf(reason, sizeof(reason), "%.2000s: %s", m->source, err);
		ec_conn_verdict(cl->conn, EINVAL, 0, reason);
		close(m->fds[0]);
		close(m->fds[1]);
		rc = -1;
	}
	if (rc) {
		ec_log(EC_LOG_ERR, "ext4cell-server: helper request: %s\n", err);
	} else {
		cl->fd_mode = true;
		cl->fuse_fd = m->fds[0];
		cl->dev_fd = m->fds[1];
		cl->dev_name = strdup(m->source);
		cl->opt.ro |= (m->flags & PROTO_REQ_RO) != 0;
		cl->iomap_marked = (m->flags & PROTO_REQ_IOMAP) != 0;
	}
	free(m);
	return rc;
}

/* Socket mode: tells the helper the image is (not) mountable, then waits for
 * its mount. Returns 0 to serve. */
static int answer_helper(struct ec_ctx *c, int conn, const char *refusal)
{
	uint32_t flags = (c->ro ? PROTO_VER_RO : 0) |
			 (c->opt.fakeroot ? 0 : PROTO_VER_DEFPERM) |
			 (c->opt.kernel || c->opt.allow_other ? PROTO_VER_ALLOW_OTHER : 0) |
			 (c->iomap_allowed ? PROTO_VER_IOMAP : 0);
	char err[256];

	if (conn < 0)
		return refusal ? -1 : 0;
	if (ec_conn_verdict(conn, refusal ? EINVAL : 0, refusal ? 0 : flags,
			    refusal ? refusal : ""))
		return -1;
	if (refusal)
		return -1;
	if (ec_conn_wait_serve(conn, err, sizeof(err))) {
		ec_log(EC_LOG_ERR, "ext4cell-server: %s: no mount from the helper: %s\n",
		       c->devname, err);
		return -1;
	}
	close(conn);
	return 0;
}

static int serve(struct ec_ctx *c, int devfd, const struct cli *cl)
{
	char err[512];
	int rc;

	if (c->opt.iomap == EC_IOMAP_ON && !c->iomap_allowed) {
		snprintf(err, sizeof(err), "%s: iomap=on, but this connection may not use FUSE "
			 "iomap (%s)", c->devname, cl->fd_mode ? "the kernel or mount.fuse.ext4's "
			 "policy did not allow it" : "a server mounting by itself is classic");
		ec_log(EC_LOG_ERR, "ext4cell-server: %s\n", err);
		answer_helper(c, cl->conn, err);
		return -1;
	}
	if (!c->ro && ec_wire_commit_timer(c->opt.commit ? c->opt.commit : EC_COMMIT_DEFAULT)) {
		ec_log(EC_LOG_ERR, "ext4cell-server: cannot set the commit timer\n");
		return -1;
	}
	if (enter_sandbox(cl->no_sandbox, c->iomap_allowed)) {
		answer_helper(c, cl->conn, "server: cannot enter its sandbox (see its log)");
		return -1;
	}
	if (ec_fs_open(c, devfd, err, sizeof(err))) {
		ec_log(EC_LOG_ERR, "ext4cell-server: %s\n", err);
		answer_helper(c, cl->conn, err);
		return -1;
	}
	if (answer_helper(c, cl->conn, NULL)) {
		ec_fs_close(c);
		return -1;
	}
	if (ec_session_signals()) {
		ec_log(EC_LOG_ERR, "ext4cell-server: cannot install signal handlers\n");
		ec_fs_close(c);
		return -1;
	}
	ec_notify("READY=1\nSTATUS=serving %s (%s mode, %s)", c->devname,
		  c->iomap_allowed ? "iomap" : "classic", c->ro ? "ro" : "rw");
	rc = ec_wire_loop(c);
	ec_powercut_report();
	ec_notify("STOPPING=1\nSTATUS=stopping: writing back and closing %s", c->devname);
	return ec_fs_close(c) || rc ? -1 : 0;
}

/* iomap mode: the kernel writes file data to the device with its own bios,
 * around the device's page cache; the server's metadata I/O must not go
 * through that cache either, or a cached (possibly dirty) copy of a block
 * that is freed and becomes file data would later overwrite what the kernel
 * wrote, or be read back stale. O_DIRECT for all of the server's device I/O
 * keeps both on the device itself, in units of the device's logical block
 * size (fdio.c): a larger unit would make every metadata block write a
 * read-modify-write of its neighbours, and put back old data over what the
 * kernel wrote there meanwhile (iomap-fsx on 1 KiB blocks). When the logical
 * block size is above the filesystem's block size, the kernel does not use
 * iomap for its files (they all have that block size), so the server's
 * read-modify-writes meet no kernel write. */
static int set_direct(struct ec_ctx *c, int devfd)
{
	int fl = fcntl(devfd, F_GETFL), lbs = 0;
	struct stat st;

	if (fl < 0 || fcntl(devfd, F_SETFL, fl | O_DIRECT)) {
		ec_log(EC_LOG_ERR, "ext4cell-server: cannot use the device with O_DIRECT: %s\n",
		       strerror(errno));
		return -1;
	}
	if (!fstat(devfd, &st) && S_ISBLK(st.st_mode) && !ioctl(devfd, BLKSSZGET, &lbs) &&
	    lbs >= 512 && lbs <= 65536 && !(lbs & (lbs - 1)))
		c->dio_align = (unsigned int)lbs;
	else
		c->dio_align = 4096;
	return 0;
}

/* c.devname as it may appear in logs (global: it lives as long as the process) */
static char *log_name;

int main(int argc, char **argv)
{
	struct cli cl = { .fuse_fd = -1, .dev_fd = -1, .conn = -1 };
	struct ec_ctx c;
	int rc, devfd;

	memset(&c, 0, sizeof(c));
	ec_log_init();			/* first: it needs fstat, which the sandbox forbids */
	initialize_ext2_error_table();	/* libext2fs's error texts, not "Unknown code" */
	rc = parse_cli(argc, argv, &cl);
	if (rc)
		return rc > 0 ? 0 : 2;
	ec_notify_open();		/* socket() and connect(): before the sandbox */
	if (cl.conn >= 0 && take_request(&cl))
		return 1;
	c.opt = cl.opt;
	c.ro = cl.opt.ro || cl.opt.norecovery;
	if (cl.fd_mode) {
		devfd = cl.dev_fd;
		c.devname = cl.dev_name ? cl.dev_name : "device";
	} else {
		c.devname = cl.dev;
		devfd = open(cl.dev, (c.ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (devfd < 0) {
			ec_log(EC_LOG_ERR, "ext4cell-server: cannot open %s %s: %s\n", cl.dev,
			       c.ro ? "read-only" : "read-write", strerror(errno));
			return 1;
		}
	}
	/* a name from the helper or the command line: any bytes but NUL */
	log_name = ec_printable(c.devname);
	if (!log_name)
		return 1;
	c.devname = log_name;
	c.opt.ro = c.ro;
	c.dev_fd = devfd;
	/* iomap: a connection the helper marked (--socket), or one given with
	 * iomap=on (--fd-mode: whoever mounted it marked it) */
	c.iomap_allowed = c.opt.iomap != EC_IOMAP_OFF &&
			  (cl.iomap_marked || (cl.fd_mode && c.opt.iomap == EC_IOMAP_ON));
	if (c.iomap_allowed && set_direct(&c, devfd))
		return 1;
	if (cl.fd_mode)
		c.fuse_fd = cl.fuse_fd;
	else if (ec_session_mount(&c, c.devname, cl.mnt))
		return 1;
	rc = serve(&c, devfd, &cl);
	/* Sandboxed, the server may not unmount (no umount2, no CAP_SYS_ADMIN): the
	 * user's umount ended the loop, or the mount fails with ENOTCONN until umount. */
	ec_session_unmount(&c, !cl.fd_mode && cl.no_sandbox);
	close(devfd);
	return rc ? 1 : 0;
}
