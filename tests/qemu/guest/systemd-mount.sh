#!/bin/bash
# tests/qemu/guest/systemd-mount.sh: in a systemd-mode guest (tests/qemu/vm
# --systemd, disks /dev/vda and /dev/vdb attached; the root image follows them), install the tree's
# mount.fuse.ext4, ext4cell-server (test build) and units the way `make install`
# places them, then check the whole flow: socket activation, mount -t fuse.ext4,
# one sandboxed service instance per mount, a .mount unit, teardown at umount.
# Prints TAP lines 'ok - systemd/NAME' / 'not ok - systemd/NAME' (+ '# ...').
set -u
repo=$(cd "$(dirname "$0")/../../.." && pwd)
build=$repo/build/test
log=/tmp/systemd-mount.log
export EXT4CELL_TIMEOUT=120	# TCG is slow; the server instance starts cold
ok() { echo "ok - systemd/$1"; }
notok() { echo "not ok - systemd/$1"; shift; for d in "$@"; do echo "$d" | sed 's/^/# /'; done; }
check() { # check NAME CMD...: one TAP line from CMD's status (output as diagnostics)
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else notok "$name" "$out"; fi
}
instances() { systemctl list-units --no-legend --plain --state=active 'ext4cell@*.service' | wc -l; }
wait_instances() { # wait_instances N: until N instances are active (30 s)
	for _ in $(seq 60); do [ "$(instances)" = "$1" ] && return 0; sleep 0.5; done
	echo "$(instances) ext4cell@ instances active, want $1"
	systemctl list-units --no-legend --plain 'ext4cell@*'
	return 1
}

# --- install, as make install does (binaries from the tree's test build)
# The instance's unit forbids ptrace (SystemCallFilter=~@debug), which the
# LeakSanitizer check of sanitizer builds needs (seccomp/sanitizer.c): it would
# wait forever for its killed tracer. Leaks are checked by the host suites.
mkdir -p /run/systemd/system/ext4cell@.service.d
printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' \
	>/run/systemd/system/ext4cell@.service.d/sanitizer.conf
mkdir -p /usr/libexec/ext4cell
ln -sf "$build/ext4cell-server" /usr/libexec/ext4cell/ext4cell-server
for n in ext2 ext3 ext4; do ln -sf "$build/mount.fuse.ext4" "/usr/sbin/mount.fuse.$n"; done
systemctl link "$repo/units/ext4cell.socket" "$repo/units/ext4cell@.service" \
	"$repo/units/media-ext4.mount" >"$log" 2>&1 && systemctl start ext4cell.socket >>"$log" 2>&1
check units-loaded bash -c '[ "$(systemctl is-active ext4cell.socket)" = active ] &&
	[ "$(stat -c "%a %U" /run/ext4cell/ext4.sock)" = "600 root" ] ||
	{ cat '"$log"'; systemctl status --no-pager ext4cell.socket; journalctl -b --no-pager | tail -40; exit 1; }'

mkfs.ext4 -q -F /dev/vda && mkfs.ext4 -q -F /dev/vdb
mkdir -p /mnt/a /mnt/b

# --- mount(8) as root, through the helper and a socket-activated instance
if mount -t fuse.ext4 -o noatime -v /dev/vdb /mnt/a >"$log" 2>&1; then ok root-mount; else
	notok root-mount "$(cat "$log")" "$(journalctl -b --no-pager -u 'ext4cell@*' | tail -20)"; fi
check findmnt bash -c '[ "$(findmnt -no SOURCE,FSTYPE /mnt/a)" = "/dev/vdb fuse.ext4" ] ||
	findmnt /mnt/a'
check io bash -c 'mountpoint -q /mnt/a && echo hello >/mnt/a/f && [ "$(cat /mnt/a/f)" = hello ] && mkdir /mnt/a/d && ls /mnt/a/d'
check iomap-offered-classic-used bash -c '{ grep -x "mount.fuse.ext4: the kernel allows FUSE iomap on this mount" '"$log"' &&
	grep -x "mount.fuse.ext4: the server accepts /dev/vdb (classic mode)" '"$log"'; } || { cat '"$log"'; exit 1; }'
check one-instance wait_instances 1
unit=$(systemctl list-units --no-legend --plain --state=active 'ext4cell@*.service' | awk '{print $1; exit}')
check instance-status bash -c "[ -n '$unit' ] && systemctl status --no-pager '$unit' | grep -q ext4cell-server"
pid=$(systemctl show -p MainPID --value "$unit")
check instance-sandbox bash -c "s=/proc/$pid/status; grep -q '^Seccomp:[[:space:]]*2' \$s &&
	grep -q '^CapEff:[[:space:]]*0000000000000000' \$s && grep -q '^CapBnd:[[:space:]]*0000000000000000' \$s &&
	! grep -q '^Uid:[[:space:]]*0[[:space:]]' \$s && grep -q '^NoNewPrivs:[[:space:]]*1' \$s || { cat \$s; exit 1; }"

# --- a device already in use (here: mounted through ext4cell) is refused
check device-busy bash -c 'out=$(/usr/sbin/mount.fuse.ext4 /dev/vdb /mnt/b 2>&1)
	[ $? = 32 ] && [ "$out" = "mount.fuse.ext4: /dev/vdb: the device is in use (mounted, or held by another program); not mounted" ] &&
	! mountpoint -q /mnt/b || { echo "$out"; exit 1; }'

# --- a second, concurrent mount gets its own instance
check second-mount mount -t fuse.ext4 /dev/vda /mnt/b
check two-instances wait_instances 2
check umount-both umount /mnt/a /mnt/b
check instances-gone wait_instances 0

# --- a .mount unit
check mount-unit-start bash -c 'systemctl start media-ext4.mount &&
	[ "$(findmnt -no SOURCE,FSTYPE /media/ext4)" = "/dev/vdb fuse.ext4" ] && [ "$(cat /media/ext4/f)" = hello ]'
check mount-unit-instance wait_instances 1
check mount-unit-stop bash -c 'systemctl stop media-ext4.mount && ! mountpoint -q /media/ext4'
check mount-unit-instance-gone wait_instances 0

# --- refusals through mount(8)
check user-refused bash -c 'out=$(setpriv --reuid=1000 --regid=1000 --clear-groups /usr/sbin/mount.fuse.ext4 /dev/vdb /mnt/a 2>&1)
	[ $? = 1 ] && [ "$out" = "mount.fuse.ext4: only root may mount with ext4cell (mounting as a user is not supported yet)" ] ||
	{ echo "$out"; exit 1; }'
check no-crash bash -c '! journalctl -b --no-pager -u "ext4cell@*" | grep -E "AddressSanitizer|runtime error|SIGSYS|code=killed|core-dump"'
check e2fsck bash -c 'e2fsck -fn /dev/vda && e2fsck -fn /dev/vdb'
