#!/bin/bash
# tests/qemu/guest/install.sh BUILD [UNIT...]: in a systemd-mode guest (tests/qemu/vm
# --systemd), put BUILD's programs and the tree's units where `make install` puts
# them: mount.fuse.ext4 setuid root in /usr/sbin (with the ext2/ext3 names),
# ext4cell-server and ext4cell-media in /usr/libexec/ext4cell, ext4cell.socket,
# ext4cell@.service and ext4cell-media@.service (and any further UNIT files)
# linked into systemd, the removable-media udev rule in /etc/udev/rules.d; then
# start ext4cell.socket.
# Exit status 0 when the socket is active, root's and mode 0600.
set -u
repo=$(cd "$(dirname "$0")/../../.." && pwd)
build=$1
shift
# A sanitizer build's instances: the unit forbids ptrace (SystemCallFilter=~@debug),
# which the LeakSanitizer check needs (seccomp/sanitizer.c): it would wait forever
# for its killed tracer (ext4cell-media: libsystemd keeps caches to exit). Leaks are
# checked by the host suites.
if grep -q __asan_init "$build/ext4cell-server"; then
	for u in ext4cell@ ext4cell-media@; do
		mkdir -p /run/systemd/system/$u.service.d
		printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' \
			>/run/systemd/system/$u.service.d/sanitizer.conf
	done
fi
mkdir -p /usr/libexec/ext4cell
# a copy, not a link: the unit's PrivateTmp= would hide a build under /tmp
install -m 0755 "$build/ext4cell-server" /usr/libexec/ext4cell/ext4cell-server
install -m 0755 "$build/ext4cell-media" /usr/libexec/ext4cell/ext4cell-media
install -m 0644 "$repo/units/61-ext4cell-media.rules" /etc/udev/rules.d/
udevadm control --reload
install -m 4755 "$build/mount.fuse.ext4" /usr/sbin/mount.fuse.ext4
for n in ext2 ext3; do ln -sf mount.fuse.ext4 "/usr/sbin/mount.fuse.$n"; done
systemctl link "$repo/units/ext4cell.socket" "$repo/units/ext4cell@.service" \
	"$repo/units/ext4cell-media@.service" "$@" &&
	systemctl start ext4cell.socket || exit 1
[ "$(systemctl is-active ext4cell.socket)" = active ] &&
	[ "$(stat -c "%a %U" /run/ext4cell/ext4.sock)" = "600 root" ]
