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
"by mount(8): mount -t fuse.ext4 SOURCE MOUNTPOINT. Root may mount anything;\n"
"users what mount.fuse.ext4(8) allows (installed setuid root).\n"
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

/* One mount on its way. */
struct job {
	const char *type, *source, *mnt;
	struct helper_opts o;
	struct helper_config conf;
	struct stat st;			/* of the source as opened */
	int mntfd, devfd;
};

static void parse_lists(struct job *j, char **lists, int nlists, bool sloppy)
{
	for (int i = 0; i < nlists; i++)
		helper_parse_options(&j->o, lists[i], sloppy);
}

/* Root: any source, any mount point, any option. */
static void prepare_root(struct job *j, char **lists, int nlists, bool sloppy)
{
	parse_lists(j, lists, nlists, sloppy);
	j->mntfd = open(j->mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (j->mntfd < 0)
		helper_fail(EXIT_MOUNT, "mount point %s: %s", j->mnt, strerror(errno));
	j->devfd = helper_open_source(j->source, j->source, j->o.ro, false, &j->st);
}

/* A user: an /etc/fstab entry users may mount, opened as root from the
 * administrator's paths; otherwise the caller's own paths opened with the
 * caller's rights, then the ownership rules on what was opened. */
static void prepare_user(struct job *j, char **lists, int nlists, bool sloppy)
{
	struct helper_fstab e;

	helper_read_config(&j->conf);
	if (helper_fstab_find(j->type, j->source, j->mnt, &e)) {
		helper_parse_options(&j->o, e.opts, sloppy);
		for (int i = 0; i < nlists; i++)
			helper_fstab_add_options(&e, &j->o, lists[i], sloppy);
		helper_privs_raise();
		j->mntfd = helper_open_nosymlinks(e.dir, O_PATH | O_DIRECTORY);
		if (j->mntfd < 0)
			helper_fail(EXIT_MOUNT, "mount point %s (from /etc/fstab): %s", e.dir,
				    strerror(errno));
		j->devfd = helper_open_source(j->source, e.source, j->o.ro, !e.tag, &j->st);
		helper_privs_drop();
		helper_fstab_check_device(&e, j->source, &j->st);
		return;
	}
	parse_lists(j, lists, nlists, sloppy);
	helper_check_user_options(&j->o, &j->conf);
	j->mntfd = open(j->mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (j->mntfd < 0 && helper_denied(errno))
		helper_fail(EXIT_USAGE, "mount point %s: you (uid %u) may not open it: %s", j->mnt,
			    (unsigned)helper_uid(), strerror(errno));
	if (j->mntfd < 0)
		helper_fail(EXIT_MOUNT, "mount point %s: %s", j->mnt, strerror(errno));
	helper_check_mountpoint(j->mnt, j->mntfd);
	j->devfd = helper_open_source(j->source, j->source, j->o.ro, false, &j->st);
	helper_check_image_owner(j->source, &j->st);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct job j;
	char *lists[64];
	int nlists = 0, ch, fusefd, sock, mfd;
	bool sloppy = false, iomap;
	uint32_t verdict;

	helper_privs_init();
	j.type = mount_type(argv[0]);
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
	j.source = argv[optind];
	j.mnt = argv[optind + 1];
	helper_privs_require();
	if (helper_is_user())
		prepare_user(&j, lists, nlists, sloppy);
	else
		prepare_root(&j, lists, nlists, sloppy);
	j.devfd = helper_attach_source(j.source, j.devfd, &j.st, j.o.ro);
	if (helper_is_user())
		helper_instance_register(&j.conf, j.source, j.devfd);

	helper_privs_raise();
	fusefd = helper_open_fuse(&iomap, !helper_is_user() || j.conf.user_iomap);
	sock = helper_connect();
	helper_privs_drop();
	verdict = helper_request(sock, fusefd, j.devfd,
				 (j.o.ro ? PROTO_REQ_RO : 0) | (iomap ? PROTO_REQ_IOMAP : 0),
				 j.o.server, j.source);
	close(j.devfd);
	mfd = helper_mount(j.source, j.type, j.mntfd, j.mnt, fusefd, &j.o, verdict);
	if (helper_serve(sock)) {
		helper_unmount(mfd);
		helper_fail(EXIT_MOUNT, "%s: the server went away before serving; unmounted %s",
			    j.source, j.mnt);
	}
	helper_say("mounted %s on %s", j.source, j.mnt);
	return 0;
}
