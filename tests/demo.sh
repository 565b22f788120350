#!/bin/bash
# tests/demo.sh: what `make demo` runs after building: boot the test kernel in
# QEMU with systemd as PID 1 (tests/qemu/vm --systemd; the Debian root image is
# built once by tests/qemu/mkrootfs, a few minutes, then cached) and run
# tests/qemu/guest/demo.sh there with the release build: an unprivileged user
# mounts an ext4 image through mount.fuse.ext4 and the socket-activated server;
# then a removable disk is plugged into the running guest, mounted for that
# user's seat, and pulled out; its image is checked here.
set -u
cd "$(dirname "$0")/.."
# the removable disk the guest has plugged in and pulled out (label STICK)
tmp=$(mktemp -d /tmp/ext4cell-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
truncate -s 64M "$tmp/stick.img"
mkfs.ext4 -q -F -L STICK -E root_owner=1000:1000 "$tmp/stick.img"
tests/qemu/vm --systemd --timeout 600 --spare "$tmp/stick.img" -- tests/qemu/guest/demo.sh "$PWD/build"
rc=$?
if [ $rc = 0 ]; then
	printf '\n== on the host: the disk image after it was pulled out\n'
	echo "/note: $(debugfs -R "cat /note" "$tmp/stick.img" 2>/dev/null)"
	e2fsck -fn "$tmp/stick.img" || rc=1
fi
[ $rc = 0 ] && echo "make demo: ok" || echo "make demo: FAILED (status $rc)"
exit $rc
