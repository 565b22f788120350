#!/bin/bash
# tests/qemu/guest/systemd-mount.sh: in a systemd-mode guest (tests/qemu/vm
# --systemd, disks /dev/vda and /dev/vdb attached; the root image follows them),
# install the tree's mount.fuse.ext4, ext4cell-server (test build) and units the
# way `make install` places them (install.sh), then check the whole flow: socket activation, mount -t fuse.ext4,
# one sandboxed service instance per mount (Type=notify: its status says what it
# serves; its messages reach the journal with their priority), a .mount unit, teardown at umount,
# and mounts by a user (an /etc/fstab `user` entry through mount(8), an image file
# of their own) with umount(8) by that user.
# Prints TAP lines 'ok - systemd/NAME' / 'not ok - systemd/NAME' (+ '# ...').
set -u
repo=$(cd "$(dirname "$0")/../../.." && pwd)
build=$repo/build/test
log=/tmp/systemd-mount.log
export EXT4CELL_TIMEOUT=120	# TCG is slow; the server instance starts cold
tap_prefix=systemd
. "$repo/tests/qemu/guest/tap.sh"

# --- install, as make install does (binaries from the tree's test build)
if bash "$repo/tests/qemu/guest/install.sh" "$build" "$repo/units/media-ext4.mount" >"$log" 2>&1; then
	ok units-loaded
else
	notok units-loaded "$(cat "$log")" "$(systemctl status --no-pager ext4cell.socket)" \
		"$(journalctl -b --no-pager | tail -40)"
fi

mkfs.ext4 -q -F -E root_owner=1000:1000 /dev/vda && mkfs.ext4 -q -F /dev/vdb
mkdir -p /mnt/a /mnt/b

# --- mount(8) as root, through the helper and a socket-activated instance
if mount -t fuse.ext4 -o noatime -v /dev/vdb /mnt/a >"$log" 2>&1; then ok root-mount; else
	notok root-mount "$(cat "$log")" "$(journalctl -b --no-pager -u 'ext4cell@*' | tail -20)"; fi
check findmnt bash -c '[ "$(findmnt -no SOURCE,FSTYPE /mnt/a)" = "/dev/vdb fuse.ext4" ] ||
	findmnt /mnt/a'
check io bash -c 'mountpoint -q /mnt/a && echo hello >/mnt/a/f && [ "$(cat /mnt/a/f)" = hello ] && mkdir /mnt/a/d && ls /mnt/a/d'
check iomap-used bash -c '{ grep -x "mount.fuse.ext4: the kernel allows FUSE iomap on this mount" '"$log"' &&
	grep -x "mount.fuse.ext4: the server accepts /dev/vdb (iomap mode)" '"$log"'; } || { cat '"$log"'; exit 1; }'
check one-instance wait_instances 1
unit=$(systemctl list-units --no-legend --plain --state=active 'ext4cell@*.service' | awk '{print $1; exit}')
check instance-status bash -c "[ -n '$unit' ] && systemctl status --no-pager '$unit' | grep -q ext4cell-server"
pid=$(systemctl show -p MainPID --value "$unit")
check instance-sandbox bash -c "s=/proc/$pid/status; grep -q '^Seccomp:[[:space:]]*2' \$s &&
	grep -q '^CapEff:[[:space:]]*0000000000000000' \$s && grep -q '^CapBnd:[[:space:]]*0000000000000000' \$s &&
	! grep -q '^Uid:[[:space:]]*0[[:space:]]' \$s && grep -q '^NoNewPrivs:[[:space:]]*1' \$s || { cat \$s; exit 1; }"
check instance-notify bash -c "[ \"\$(systemctl show -p StatusText --value '$unit')\" = 'serving /dev/vdb (iomap mode, rw)' ] ||
	{ systemctl show -p Type,NotifyAccess,StatusText,ActiveState '$unit'; exit 1; }"

# --- a device already in use (here: mounted through ext4cell) is refused
check device-busy bash -c 'out=$(/usr/sbin/mount.fuse.ext4 /dev/vdb /mnt/b 2>&1)
	[ $? = 32 ] && [ "$out" = "mount.fuse.ext4: /dev/vdb: the device is in use (mounted, or held by another program); not mounted" ] &&
	! mountpoint -q /mnt/b || { echo "$out"; exit 1; }'

# --- a second, concurrent mount gets its own instance
check second-mount mount -t fuse.ext4 /dev/vda /mnt/b
check two-instances wait_instances 2
check umount-both umount /mnt/a /mnt/b
check instances-gone wait_instances 0

# --- the server's stderr is the journal: a quota image is served read-only,
# which it says at warning priority ("<4>" on its stderr)
journal_priority() {
	truncate -s 32M /tmp/q.img && mkfs.ext4 -q -F -O quota /tmp/q.img && mkdir -p /mnt/q &&
		mount -t fuse.ext4 /tmp/q.img /mnt/q && umount /mnt/q && wait_instances 0 &&
		journalctl --sync && journalctl -b --no-pager -p warning..warning -u 'ext4cell@*' |
		grep -q "quota.*; mounting read-only" ||
		{ journalctl -b --no-pager -o verbose --output-fields=PRIORITY,MESSAGE -u 'ext4cell@*' | tail -20; return 1; }
}
check journal-priority journal_priority

# --- a .mount unit
check mount-unit-start bash -c 'systemctl start media-ext4.mount &&
	[ "$(findmnt -no SOURCE,FSTYPE /media/ext4)" = "/dev/vdb fuse.ext4" ] && [ "$(cat /media/ext4/f)" = hello ]'
check mount-unit-instance wait_instances 1
check mount-unit-stop bash -c 'systemctl stop media-ext4.mount && ! mountpoint -q /media/ext4'
check mount-unit-instance-gone wait_instances 0

# --- a user (ext4user, uid 1000, from mkrootfs) with the setuid helper (as_user)
home=/home/ext4user
user_mount() { # user_mount CMD...: CMD as the user, then MOUNTPOINT (last arg) is theirs
	as_user "$@" && findmnt -no SOURCE,FSTYPE,OPTIONS "${!#}" | grep "fuse.ext4 .*nosuid,nodev.*user_id=1000,"
}
user_io() { # user_io DIR: write and read back a file as the user; root may not read it
	as_user sh -c "echo mine >$1/f && [ \"\$(cat $1/f)\" = mine ] && [ \$(stat -c %u $1/f) = 1000 ]" &&
		! cat "$1/f" 2>/dev/null
}
user_umount() { # user_umount DIR: umount(8) as the user; its instance and loop device go
	as_user umount "$1" && ! mountpoint -q "$1" && wait_instances 0 &&
		[ -z "$(losetup -l -n)" ] || { losetup -l; holders "$1"; return 1; }
}
holders() { # the processes with a file, cwd or root under DIR (for a failed umount)
	ls -l /proc/[0-9]*/cwd /proc/[0-9]*/root /proc/[0-9]*/fd/* 2>/dev/null | grep -F " -> $1" |
		while read -r l; do p=${l#*/proc/}; p=${p%%/*}; echo "$l: $(tr '\0' ' ' </proc/$p/cmdline)"; done
}
user_refused() {
	local out rc
	out=$(as_user /usr/sbin/mount.fuse.ext4 /dev/vdb $home/mnt 2>&1)
	rc=$?
	[ $rc = 1 ] && [ "$out" = "mount.fuse.ext4: /dev/vdb: you (uid 1000) may not open it read-write: Permission denied; users may mount a device they may read (and for rw, write), an image file they own, or an /etc/fstab entry marked user" ] &&
		! mountpoint -q $home/mnt || { echo "exit $rc: $out"; return 1; }
}
# an /etc/fstab entry marked user: mount(8) and umount(8) by the user
mkdir -p /mnt/u
echo "/dev/vda /mnt/u fuse.ext4 user,noauto 0 0" >>/etc/fstab
check user-fstab-mount user_mount mount /mnt/u
check user-fstab-io user_io /mnt/u
check user-fstab-noexec bash -c 'findmnt -no OPTIONS /mnt/u | grep -q noexec'
check user-instance wait_instances 1
check user-umount user_umount /mnt/u
# an image file the user owns, on a directory the user owns: the helper directly
as_user sh -c "truncate -s 32M $home/img && /sbin/mkfs.ext4 -q -F -E root_owner=1000:1000 $home/img &&
	mkdir -p $home/mnt"
check user-image-mount user_mount /usr/sbin/mount.fuse.ext4 $home/img $home/mnt
check user-image-io user_io $home/mnt
check user-image-umount user_umount $home/mnt
check user-refused user_refused
check no-crash bash -c '! journalctl -b --no-pager -u "ext4cell@*" | grep -E "AddressSanitizer|runtime error|SIGSYS|code=killed|core-dump"'
check e2fsck bash -c 'e2fsck -fn /dev/vda && e2fsck -fn /dev/vdb'
