#!/bin/bash
# tests/qemu/guest/media.sh: removable disks in a systemd-mode guest, after
# systemd-mount.sh installed the tree's programs, units and udev rule. A logind
# session of ext4user on seat0 (PAM, as a desktop login makes one); then the
# host hot-plugs disks (tests/qemu/vm --spare: a removable SCSI disk on a
# virtio-scsi bus) on request: spare 0 (ext4, label STICK) must be mounted for
# ext4user at /media/ext4user/STICK through ext4cell, the seat's user given
# access to the device and nobody else to the directory; a file written and
# synced; the disk pulled out: mount, instance, unit and directory gone. Spare
# 1 (a crafted image) plugged and pulled: refused or served, nothing left
# behind. Spare 2 with automounting switched off: not mounted. The suite
# checks the pulled STICK image on the host (synced file there, e2fsck clean).
# Prints TAP lines 'ok - media/NAME' / 'not ok - media/NAME' (+ '# ...').
set -u
repo=$(cd "$(dirname "$0")/../../.." && pwd)
tap_prefix=media
. "$repo/tests/qemu/guest/tap.sh"
. "$repo/tests/qemu/guest/plug.sh"
stick=/media/ext4user/STICK
# (root may not even stat a user's FUSE mount without allow_other: the mount
# table says what is mounted)
mounted() { findmnt -rn "$1" >/dev/null; }

unit_settled() { # the unit for DEV ran: active (it exits 0, RemainAfterExit) or failed
	local s
	s=$(systemctl show -p ActiveState --value "ext4cell-media@$1.service")
	[ "$s" = active ] || [ "$s" = failed ]
}
# serving DEV: the ext4cell@ instances whose status names /dev/DEV
serving() {
	local u
	for u in $(systemctl list-units --no-legend --plain --state=active 'ext4cell@*.service' |
		   awk '{print $1}'); do
		systemctl show -p StatusText --value "$u" | grep -q "serving /dev/$1 " && echo "$u"
	done
}
left_behind() { # nothing of DEV's mount may remain: mount, instance, unit, directory
	local out=""
	findmnt -rn -t fuse.ext4 | grep -q " /media/" &&
		out+="mounts: $(findmnt -rn -t fuse.ext4 | grep " /media/") "
	[ -z "$(serving "$1")" ] || out+="instances serving /dev/$1: $(serving "$1") "
	[ "$(systemctl show -p ActiveState --value "ext4cell-media@$1.service")" = active ] &&
		out+="unit still active "
	[ -z "$(ls -A /media/ext4user 2>/dev/null)" ] || out+="in /media/ext4user: $(ls -A /media/ext4user) "
	[ -z "$out" ] || { echo "$out"; return 1; }
}

all_gone() { until_true 30 left_behind "$1" >/dev/null || left_behind "$1"; }	# within 30 s

# --- a session of ext4user on seat0, made through PAM (pam_systemd) as a login does
check seat-session seat_login ext4user

# --- a disk plugged in: mounted for the seat's user
dev=$(plug_in 0)
check plugged bash -c "[ -n '$dev' ] && [ \"\$(cat /sys/block/$dev/removable)\" = 1 ]"
dev=${dev:-sda}
check mounted until_true 90 mounted $stick
check mount-source bash -c "findmnt -no SOURCE,FSTYPE,OPTIONS $stick |
	grep -E '^/dev/$dev fuse.ext4 .*nosuid,nodev.*user_id=1000,' || { findmnt $stick; exit 1; }"
check unit-active bash -c "[ \"\$(systemctl is-active ext4cell-media@$dev.service)\" = active ]"
check seat-access as_user test -r /dev/$dev -a -w /dev/$dev
# /media/ext4user: root's, 0750, ext4user let in (ACL), another user not
media_dir() {
	[ "$(stat -c "%U %a" /media/ext4user)" = "root 750" ] &&
		[ "$(as_user stat -c %U $stick)" = ext4user ] && as_user ls $stick >/dev/null &&
		! setpriv --reuid=1001 --regid=1001 --clear-groups ls /media/ext4user 2>/dev/null ||
		{ stat /media/ext4user; getfacl /media/ext4user; return 1; }
}
check media-dir media_dir
check user-io as_user sh -c "echo synced >$stick/synced && sync -f $stick/synced &&
	[ \"\$(cat $stick/synced)\" = synced ]"
# --- pulled out without umount
pull_out 0 "$dev"
check detached until_true 30 bash -c "! findmnt -rn $stick >/dev/null"
check nothing-left all_gone "$dev"
check unit-says bash -c "journalctl -b --no-pager -u ext4cell-media@$dev.service |
	grep -q 'ext4cell-media: $stick detached: the disk is gone' ||
	{ journalctl -b --no-pager -u ext4cell-media@$dev.service | tail -20; exit 1; }"

# --- a crafted image plugged in and pulled out: refused or served, no trace left
dev=$(plug_in 1)
dev=${dev:-sda}
check crafted-settled until_true 90 unit_settled "$dev"
if findmnt -rn -t fuse.ext4 >/dev/null; then
	as_user find /media/ext4user/ -xdev -type f -exec cat {} + >/dev/null 2>&1
	as_user ls -lR /media/ext4user/ >/dev/null 2>&1
fi
pull_out 1 "$dev"
check crafted-nothing-left all_gone "$dev"

# --- automounting off (the administrator's switch): plugged, not mounted
echo "media_automount = no" >/etc/ext4cell.conf
dev=$(plug_in 2)
dev=${dev:-sda}
check switch-off bash -c "$(declare -f until_true unit_settled); until_true 60 unit_settled $dev &&
	! findmnt -rn -t fuse.ext4 | grep -q ' /media/' &&
	journalctl -b --no-pager -u ext4cell-media@$dev.service | grep -q 'automounting is off'"
pull_out 2 "$dev"
rm -f /etc/ext4cell.conf
check no-crash bash -c '! journalctl -b --no-pager -u "ext4cell@*" -u "ext4cell-media@*" |
	grep -E "AddressSanitizer|runtime error|SIGSYS|code=killed|core-dump"'
