#!/bin/bash
# tests/qemu/guest/demo.sh [BUILD]: the product demo, in a QEMU guest with systemd
# as PID 1 (tests/qemu/vm --systemd): install BUILD's programs (default: the
# release build, build/) and the units as `make install` does, then, as the
# unprivileged user ext4user: make an ext4 image, mount it with mount.fuse.ext4
# through the socket-activated ext4cell-server, write and read files; show the
# server instance's sandbox and whether iomap is in use; unmount as the user and
# check the image with e2fsck; then a removable disk (tests/demo.sh's spare 0,
# label STICK) plugged in for ext4user's seat session, mounted by ext4cell-media,
# written to, and pulled out. Exit 0 only when all of it worked.
set -u
repo=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$repo/build}
home=/home/ext4user img=/home/ext4user/disk.img mnt=/home/ext4user/mnt
step() { printf '\n== %s\n' "$*"; }
die() { echo; echo "demo FAILED: $*"; exit 1; }
# as_user CMD...: CMD as ext4user (uid 1000, no extra groups); echoes it first
as_user() {
	if [ "$1" = sh ]; then echo "ext4user\$ $3"; else echo "ext4user\$ $*"; fi
	setpriv --reuid=1000 --regid=1000 --clear-groups env HOME=$home "$@"
}
instance() { systemctl list-units --no-legend --plain --state=active 'ext4cell@*.service' | awk '{print $1; exit}'; }

step "a guest with $(ps -p 1 -o comm=) as PID 1, kernel $(uname -r)"
bash "$repo/tests/qemu/guest/install.sh" "$build" >/tmp/install.log 2>&1 ||
	die "installing: $(cat /tmp/install.log)"
ls -l /usr/sbin/mount.fuse.ext4 /usr/libexec/ext4cell/ext4cell-server
echo "ext4cell.socket: $(systemctl is-active ext4cell.socket), $(stat -c '%n mode %a owner %U' /run/ext4cell/ext4.sock)"

# users' mounts ask for FUSE iomap only where the administrator says so
# (mount.fuse.ext4(8): user_iomap, default no while the kernel series' safety
# items are open); this guest's kernel is our series, so the demo says yes
printf 'user_iomap = yes\n' >/etc/ext4cell.conf

step "as ext4user: make an ext4 image"
as_user truncate -s 128M $img || die "truncate"
as_user /sbin/mkfs.ext4 -q -F -L demo -E root_owner=1000:1000 $img || die "mkfs.ext4"
as_user mkdir -p $mnt || die "mkdir"

step "as ext4user: mount it through mount.fuse.ext4 (setuid root) and a socket-activated server"
as_user /usr/sbin/mount.fuse.ext4 -v $img $mnt 2>&1 | tee /tmp/helper.log
[ "${PIPESTATUS[0]}" = 0 ] || die "mount.fuse.ext4 failed"
findmnt -o TARGET,SOURCE,FSTYPE,OPTIONS $mnt || die "not mounted"

step "as ext4user: write files and read them back"
as_user cp -r "$repo/server" "$repo/seccomp" $mnt/ || die "copy into $mnt"
as_user sh -c "echo hello from ext4user >$mnt/hello && cat $mnt/hello" || die "write/read"
as_user sh -c "cd $mnt && find server seccomp -type f -exec sha256sum {} + >$home/sums" || die "sha256sum"
(cd "$repo" && sha256sum -c --quiet $home/sums) || die "read-back mismatch"
echo "$(wc -l <$home/sums) files copied in and read back intact"
as_user ls -la $mnt
as_user df -h $mnt
cat $mnt/hello >/dev/null 2>&1 && die "root could read the user's mount (no allow_other)"
echo "(root itself gets 'Permission denied' there: the mount is ext4user's alone)"

step "the server instance and its sandbox"
unit=$(instance)
[ -n "$unit" ] || die "no ext4cell@ instance is running"
pid=$(systemctl show -p MainPID --value "$unit")
systemctl status --no-pager --lines=0 "$unit" | head -5
uid=$(awk '/^Uid:/ {print $3}' /proc/$pid/status)
echo "server pid $pid runs as user $(systemctl show -p User --value "$unit") (uid $uid, DynamicUser: neither root nor ext4user)"
grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/$pid/status
seccomp=$(awk '/^Seccomp:/ {print $2}' /proc/$pid/status)
[ "$seccomp" = 2 ] && echo "=> no capabilities, no new privileges, seccomp filter mode (2)" ||
	die "the server is not under a seccomp filter"
if grep -qx "mount.fuse.ext4: the kernel allows FUSE iomap on this mount" /tmp/helper.log; then
	kernel="the kernel allows FUSE iomap"
elif grep -q "^mount.fuse.ext4: FUSE iomap not asked for" /tmp/helper.log; then
	kernel="users' mounts do not ask for FUSE iomap (user_iomap in /etc/ext4cell.conf)"
else
	kernel="the kernel has no FUSE iomap"
fi
mode=$(sed -n 's/^mount.fuse.ext4: the server accepts .* (\(.*\) mode)$/\1/p' /tmp/helper.log)
iomap="$kernel; the server uses $mode mode"
echo "iomap: $iomap (from mount.fuse.ext4 -v)"

step "as ext4user: unmount; the instance and the loop device go"
as_user umount $mnt || die "umount by ext4user"
for _ in $(seq 60); do [ -z "$(instance)" ] && [ -z "$(losetup -j $img)" ] && break; sleep 0.5; done
[ -z "$(instance)" ] || die "the server instance is still running after umount"
[ -z "$(losetup -j $img)" ] || die "the loop device is still there after umount"
echo "no ext4cell@ instance left, no loop device left"
e2fsck -fn $img || die "e2fsck found problems"

step "a removable disk plugged in: ext4cell-media mounts it for the seat's user"
. "$repo/tests/qemu/guest/plug.sh"
stick=/media/ext4user/STICK
seat_login ext4user || die "no logind session of ext4user on seat0"
echo "logind: session $(loginctl show-seat seat0 -p ActiveSession --value) of ext4user is active on seat0"
dev=$(plug_in 0) || die "the plugged disk did not appear"
echo "plugged in: /dev/$dev, $(lsblk -ndo SIZE,FSTYPE,LABEL /dev/$dev), removable=$(cat /sys/block/$dev/removable)"
until_true 90 findmnt -rn $stick >/dev/null ||
	die "not mounted: $(journalctl -b --no-pager -o cat -u "ext4cell-media@$dev.service" | tail -5)"
journalctl -b --no-pager -o cat -u "ext4cell-media@$dev.service" | grep '^ext4cell-media:'
findmnt -o TARGET,SOURCE,FSTYPE,OPTIONS $stick
as_user sh -c "echo written before the disk was pulled out >$stick/note && cat $stick/note" ||
	die "writing on the disk"

step "the disk pulled out, no umount: the mount, its server and its directory go"
pull_out 0 "$dev" || die "the disk did not go away"
until_true 30 bash -c "! findmnt -rn $stick >/dev/null" || die "$stick is still mounted"
for _ in $(seq 60); do [ -z "$(instance)" ] && break; sleep 0.5; done
[ -z "$(instance)" ] || die "the server instance is still running after the disk went"
journalctl -b --no-pager -o cat -u "ext4cell-media@$dev.service" | grep '^ext4cell-media:' | tail -1
echo "no ext4cell@ instance left; /media/ext4user holds: $(ls -A /media/ext4user | wc -l) entries"

echo
echo "demo ok: ext4user (uid 1000) mounted an ext4 image through mount.fuse.ext4 and a"
echo "  socket-activated ext4cell-server (uid $uid, no capabilities, seccomp mode $seccomp),"
echo "  wrote and read back $(wc -l <$home/sums) files, and unmounted it;"
echo "  iomap: $iomap;"
echo "  a disk plugged in was mounted for ext4user on seat0 and went cleanly when pulled out"
