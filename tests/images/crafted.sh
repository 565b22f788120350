#!/bin/bash
# tests/images/crafted.sh: crafted images (craft, families x seeds) through
# ext4cell-server on the host (classic FUSE, the sanitizer build, sandboxed
# as in production, errors=continue), or with --via-helper MODE as users
# mount them: mount.fuse.ext4 -o iomap=on|off (MODE iomap or classic) sets up
# a loop device and hands the mount to the socket-activated server, whose
# instances log to $EC_INSTANCE_LOG (tests/qemu/guest/crafted.sh runs this in
# the test kernel's guest). Per image: mount; stat, read, readlink
# and getfattr of everything, ls -lR; create, mkdir, rename, overwrite with
# fsync, rm -r, truncate, syncfs; umount. Each operation may fail (EIO is a
# right answer to damage); the image FAILS when the server is killed by a
# signal (SIGSYS included) or exits while mounted, a sanitizer reports, an
# operation or the mount takes longer than 60 s, umount leaves the mount or
# the server behind, or the server's exit status after umount is not 0 (with
# the helper: an instance killed by a signal, a loop device left behind).
# Outcomes: refused (the server declined to serve it, with a message),
# served, served-with-EIO. Prints TAP lines (one per family; one per failed
# image, named crafted/FAMILY/SEED, with the server's log) and, with
# --report FILE, a markdown table of families x outcomes there.
# usage: crafted.sh FIRST-SEED LAST-SEED [--report FILE] [--via-helper MODE]
. "$(dirname "$0")/../host/lib.sh"
craft=$build/tests/images/craft rel=$repo/build
first=$1 last=$2 report= via=
shift 2
while [ $# -gt 0 ]; do
	case $1 in
	--report) report=$2 ;;
	--via-helper) via=$2 ;;
	*) echo "crafted.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
families=$("$craft" --list 2>/dev/null)
tag=crafted${via:+-$via}
need_host $(for f in $families; do echo "$tag/$f"; done)
start=$(date +%s)
bash "$repo/tests/images/bases.sh" "$work" || { notok crafted/bases "cannot build the base images"; exit 1; }
bases=(ext4-csum ext4 ext3)

sanitizer() { grep -Eq "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$work/server.log"; }

# Through the helper: this image's part of the instances' log, which
# tests/qemu/guest/instance.sh ends with "instance exit status N".
ilog=${EC_INSTANCE_LOG:-/dev/null} ilog_at=0
instance_log() { tail -c +$((ilog_at + 1)) "$ilog"; }
# instance_gone SECONDS: the instance has logged its exit status (then in $gone_status)
instance_gone() {
	local line
	for _ in $(seq $(($1 * 10))); do
		line=$(instance_log | grep -a -m1 "^instance exit status ")
		[ -n "$line" ] && gone_status=${line##* } && return 0
		sleep 0.1
	done
	return 1
}
# helper_mount IMG MNT: 0 when mounted; the helper's and the instance's log in server.log
helper_mount() {
	local rc
	ilog_at=$(stat -c %s "$ilog" 2>/dev/null || echo 0)
	mkdir -p "$2"
	timeout -k 2 60 "$rel/mount.fuse.ext4" -v -o "iomap=$([ "$via" = iomap ] && echo on || echo off),kernel,errors=continue" \
		"$1" "$2" >"$work/helper.log" 2>&1
	rc=$?
	[ $rc = 124 ] || [ $rc = 137 ] && echo "ec_mount: mount.fuse.ext4 took longer than 60 s" >>"$work/helper.log"
	if [ $rc != 0 ]; then
		instance_gone 10
		{ cat "$work/helper.log"; instance_log; } >"$work/server.log"
		return 1
	fi
}
# helper_umount MNT: the instance's exit status, 124 when it outlived umount by 30 s
helper_umount() {
	timeout -k 2 10 umount "$1" || timeout -k 2 10 umount -l "$1"
	instance_gone 30 || gone_status=124
	{ cat "$work/helper.log"; instance_log; } >"$work/server.log"
	return "$gone_status"
}
mount_image() {
	if [ -n "$via" ]; then helper_mount "$@"; else ec_mount "$1" "$2" kernel,errors=continue; fi
}
server_alive() {
	if [ -n "$via" ]; then ! instance_log | grep -aq "^instance exit status "
	else kill -0 "$ec_pid" 2>/dev/null; fi
}
umount_image() {
	if [ -n "$via" ]; then helper_umount "$1"; else ec_umount "$1" 30; fi
}

# ops MNT: the walk and the writes; 124 when one of them hung, else 0; sets eio
ops() {
	local m=$1 op rc
	eio=0
	for op in "find $m -xdev -exec stat {} +" "find $m -xdev -type f -exec cat {} +" \
		"find $m -xdev -type l -exec readlink {} +" "getfattr -R -h -d -m - $m" "ls -lR $m" \
		"echo new >$m/new && mkdir $m/nd && mv $m/new $m/nd/moved" \
		"dd if=/dev/zero of=$m/file bs=1024 count=8 conv=notrunc,fsync status=none" \
		"rm -rf $m/dir" "truncate -s 1000 $m/sparse" "sync -f $m"; do
		timeout -k 2 60 bash -c "$op" >/dev/null 2>"$work/op.err"
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "'$op' took longer than 60 s" >>"$work/server.log"
			return 124
		fi
		grep -Eq "Input/output error|Structure needs cleaning" "$work/op.err" && eio=1
	done
	return 0
}

# image FAMILY SEED: one image; its outcome in $outcome, 1 when it failed
image() {
	local img=$work/img mnt=$work/mnt why=
	outcome=failed
	"$craft" "$1" "$2" "$work/${bases[$2 % 3]}.img" "$img" 2>"$work/craft.log" ||
		{ notok "$tag/$1/$2" "craft failed" "$work/craft.log"; return 1; }
	gone_status=0
	if ! mount_image "$img" "$mnt"; then
		if grep -q "^ec_mount:" "$work/server.log"; then why="the mount hung"
		elif [ "${gone_status:-0}" -ge 128 ]; then why="server killed by signal $((gone_status - 128))"
		elif sanitizer; then why="sanitizer report"
		fi
		outcome=refused
	else
		ops "$mnt" || why="an operation hung"
		server_alive || why=${why:-"the server exited while mounted"}
		umount_image "$mnt"
		rc=$?
		[ $rc = 0 ] || why=${why:-"server exit status $rc after umount"}
		awk -v m="$mnt" '$2 == m {f = 1} END {exit !f}' /proc/mounts && why=${why:-"mount left behind"}
		sanitizer && why=${why:-"sanitizer report"}
		outcome=served
		[ $eio = 1 ] && outcome=served-with-EIO
		grep -q "(iomap mode)" "$work/helper.log" 2>/dev/null && iomap_served=$((iomap_served + 1))
	fi
	[ -n "$via" ] && [ -n "$(losetup -j "$img")" ] && why=${why:-"loop device left behind: $(losetup -j "$img")"}
	if [ -n "$why" ]; then
		outcome=failed
		notok "$tag/$1/$2" "$why" "$work/craft.log" "$work/server.log"
		timeout -k 2 10 umount -l "$mnt" 2>/dev/null
		return 1
	fi
}

declare -A count
iomap_served=0
for f in $families; do
	for s in $(seq "$first" "$last"); do
		image "$f" "$s"
		count[$f/$outcome]=$((${count[$f/$outcome]:-0} + 1))
	done
	summary="${count[$f/refused]:-0} refused, ${count[$f/served]:-0} served, ${count[$f/served-with-EIO]:-0} served with EIO"
	[ "$via" = iomap ] && summary+=", $iomap_served in iomap mode so far"
	if [ "${count[$f/failed]:-0}" = 0 ]; then
		ok "$tag/$f ($summary)"
	else
		notok "$tag/$f" "${count[$f/failed]} failed; $summary"
	fi
done
if [ -n "$report" ]; then
	{
		echo "| family | images | refused | served | served with EIO | failed |"
		echo "|---|---|---|---|---|---|"
		for f in $families; do
			echo "| $f | $((last - first + 1)) | ${count[$f/refused]:-0} | ${count[$f/served]:-0} |" \
				"${count[$f/served-with-EIO]:-0} | ${count[$f/failed]:-0} |"
		done
		echo
		if [ -n "$via" ]; then
			echo "Seeds $first-$last per family, $via mode through mount.fuse.ext4 and the" \
				"socket-activated server, test kernel in QEMU, sanitizer build, $(($(date +%s) - start)) s."
			[ "$via" = iomap ] && echo "Served in iomap mode: $iomap_served images."
		else
			echo "Seeds $first-$last per family, host kernel (classic FUSE), sanitizer build," \
				"$(($(date +%s) - start)) s."
		fi
	} >"$report"
fi
