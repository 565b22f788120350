#!/bin/bash
# tests/qemu/guest/demo.sh DEVICE: the product demo, inside a QEMU guest booted
# with our kernel: make an ext4 filesystem on DEVICE, mount it through
# ext4cell-server (FUSE), copy a tree in and read it back, show the mount, then
# unmount and check the filesystem with e2fsck. Exit 0 only when all of it worked.
set -u
dev=$1 mnt=/tmp/ext4cell-demo server=${EXT4CELL_SERVER:-build/ext4cell-server}
step() { printf '\n== %s\n' "$*"; }
die() { echo "demo FAILED: $*"; exit 1; }
step "mkfs.ext4 on $dev"
mkfs.ext4 -q -F -L ext4cell-demo "$dev" || die "mkfs.ext4 $dev"
mkdir -p "$mnt"
step "mount $dev on $mnt with $server (classic FUSE)"
"$server" -o kernel "$dev" "$mnt" 2>/tmp/server.log &
spid=$!
for _ in $(seq 100); do grep -q " $mnt fuse" /proc/mounts && break; sleep 0.1; done
grep " $mnt " /proc/mounts || die "not mounted; server said: $(cat /tmp/server.log)"
step "copy the repository's sources in and read them back"
cp -r server seccomp "$mnt/" || die "copy into $mnt"
mkdir "$mnt/dir" && ln -s ../server/main.c "$mnt/dir/link" && echo hello >"$mnt/dir/file"
setfattr -n user.demo -v works "$mnt/dir/file" || die "setfattr"
(cd "$mnt" && find server seccomp -type f -exec sha256sum {} +) >/tmp/in.sum
sha256sum -c --quiet /tmp/in.sum || die "read-back mismatch"
echo "$(wc -l </tmp/in.sum) files read back intact"
ls -la "$mnt" "$mnt/dir"
getfattr -d "$mnt/dir/file"
df -h "$mnt"
step "unmount and e2fsck -fn"
umount "$mnt" || die "umount"
wait $spid || die "server exited with status $?: $(cat /tmp/server.log)"
e2fsck -fn "$dev" || die "e2fsck found problems"
echo
echo "demo ok"
