/* helper/main.c: mount.fuse.ext4 (also called as mount.fuse.ext2/ext3), the
 * privileged mount helper: command line, then the steps of DESIGN.md section 1
 * in order. Exit codes are mount(8)'s: see helper.h and mount.fuse.ext4.8. */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static const char usage[] =
"usage: mount.fuse.ext4 SOURCE MOUNTPOINT [-o OPTIONS] [-n] [-s] [-v]\n"
"\n"
"Mounts the ext2/ext3/ext4 filesystem on SOURCE (a block device, or an image\n"
"file through a loop device) at MOUNTPOINT, served by a sandboxed, socket-\n"
"activated ext4cell-server instead of the kernel's ext4 driver. Normally run\n"
"by mount(8): mount -t fuse.ext4 SOURCE MOUNTPOINT. Only root may mount.\n"
"\n"
"  -o OPTIONS  comma-separated mount options (mount.fuse.ext4(8)); repeatable\n"
"  -n          do not write /etc/mtab (accepted; there is none to write)\n"
"  -s          ignore unknown mount options instead of failing\n"
"  -v          say what happens\n"
"  -t TYPE     accepted for mount(8)\n"
"  -h, --help  this text\n"
"\n"
"Exit status: 0 mounted, 1 usage or not allowed, 2 system error (/dev/fuse,\n"
"loop device, server socket), 32 mount failure (source, server verdict, mount).\n";

/* "fuse.ext2" when called as mount.fuse.ext2, and so on; fuse.ext4 otherwise. */
static const char *mount_type(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	if (!strcmp(base, "mount.fuse.ext2"))
		return "fuse.ext2";
	if (!strcmp(base, "mount.fuse.ext3"))
		return "fuse.ext3";
	return "fuse.ext4";
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct helper_opts o;
	const char *type = mount_type(argv[0]), *source, *mnt;
	char *lists[64];
	int nlists = 0, ch, mntfd, devfd, fusefd, sock;
	bool sloppy = false, iomap;
	uint32_t verdict;

	while ((ch = getopt_long(argc, argv, "o:nsvt:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			if (nlists == (int)(sizeof(lists) / sizeof(lists[0])))
				helper_fail(EXIT_USAGE, "too many -o options");
			lists[nlists++] = optarg;
			break;
		case 'n':
		case 't':
			break;
		case 's':
			sloppy = true;
			break;
		case 'v':
			helper_verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 2)
		helper_fail(EXIT_USAGE, "expected SOURCE and MOUNTPOINT (see --help)");
	source = argv[optind];
	mnt = argv[optind + 1];
	if (getuid() != 0 || geteuid() != 0)
		helper_fail(EXIT_USAGE, "only root may mount with ext4cell (mounting as a user "
			    "is not supported yet)");
	for (int i = 0; i < nlists; i++)
		helper_parse_options(&o, lists[i], sloppy);

	mntfd = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (mntfd < 0)
		helper_fail(EXIT_MOUNT, "mount point %s: %s", mnt, strerror(errno));
	devfd = helper_open_source(source, o.ro);
	fusefd = helper_open_fuse(&iomap);
	sock = helper_connect();
	verdict = helper_request(sock, fusefd, devfd,
				 (o.ro ? PROTO_REQ_RO : 0) | (iomap ? PROTO_REQ_IOMAP : 0),
				 o.server, source);
	close(devfd);
	helper_mount(source, type, mntfd, mnt, fusefd, o.msflags, verdict);
	if (helper_serve(sock)) {
		umount2(mnt, MNT_DETACH);
		helper_fail(EXIT_MOUNT, "%s: the server went away before serving; unmounted %s",
			    source, mnt);
	}
	helper_say("mounted %s on %s", source, mnt);
	return 0;
}
