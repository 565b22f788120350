#!/bin/bash
# tests/qemu/guest/fs-roundtrip.sh: in a guest, make an ext4 filesystem on DEVICE,
# mount it with the kernel's ext4 or with Debian's fuse2fs (classic FUSE), write a
# random file, remount, and check the file's sha256 survived. Prints one line
# 'roundtrip MODE ok' or 'roundtrip MODE FAILED: why'; exit 0 only on success.
# Usage: fs-roundtrip.sh kernel|fuse2fs DEVICE
set -u
mode=$1 dev=$2 mnt=/tmp/rt-$1
fail() { echo "roundtrip $mode FAILED: $*"; umount "$mnt" 2>/dev/null; exit 1; }
mkdir -p "$mnt"
mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4 $dev"
domount() {
	case "$mode" in
	kernel) mount -t ext4 "$dev" "$mnt" ;;
	fuse2fs) fuse2fs -o rw,fakeroot "$dev" "$mnt" ;;
	esac || fail "mount ($mode) of $dev"
	grep -q " $mnt " /proc/mounts || fail "$mnt not in /proc/mounts"
}
# fuse2fs still holds DEVICE (O_EXCL) for a moment after umount returns: wait
# for it to exit (at most 10 s) before the device is opened again.
doumount() {
	umount "$mnt" || fail "$1"
	for _ in $(seq 100); do
		pgrep -x fuse2fs >/dev/null || return 0
		sleep 0.1
	done
	fail "fuse2fs still running 10 s after umount"
}
domount
head -c 8M /dev/urandom >/tmp/rt-src || fail "reading /dev/urandom"
cp /tmp/rt-src "$mnt/data" || fail "write to $mnt/data"
want=$(sha256sum </tmp/rt-src)
doumount umount
domount
got=$(sha256sum <"$mnt/data") || fail "read back $mnt/data"
[ "$got" = "$want" ] || fail "sha256 mismatch: wrote $want, read $got"
doumount "second umount"
e2fsck -fn "$dev" >/tmp/rt-fsck 2>&1 || fail "e2fsck -fn: $(tail -3 /tmp/rt-fsck)"
echo "roundtrip $mode ok"
