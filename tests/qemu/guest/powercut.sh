#!/bin/bash
# tests/qemu/guest/powercut.sh: power cuts in a guest, by the block layer.
# DISK is put behind a device-mapper device; a seeded workload
# (tests/host/powercut.c: create, write, append, truncate, fallocate, punch,
# rename, unlink, fsync) runs on it through TARGET, and at a seeded instant
# the device's table is swapped for dm-flakey's drop_writes (every write from
# then on, flushes included, is acknowledged and thrown away: the power went
# out, the filesystem goes on unaware). The workload is killed, the
# filesystem unmounted (its last writes dropped too), the device given back
# its writes, and on what the disk holds:
#   e2fsck-replay-clean  e2fsck's replay (-E journal_only), then e2fsck -fn clean
#   kernel-replay-intact kernel ext4's replay (loop mount of a copy): every file
#                        whose fsync returned before the cut is whole, no file
#                        holds bytes it never had, e2fsck -fn clean after
#   our-replay-intact    the same through an ext4cell iomap mount of the disk
# TARGET: ext4 (the guest kernel's ext4: the reference, it must pass),
# iomap (ext4cell-server in iomap mode: file data written by the kernel's
# iomap layer, ordered against the server's journal commits by IOEND), or
# iomap-nojournal (the same with -o journal=off: only counts the cuts that
# leave e2fsck -fn unclean; the suite wants at least one). Odd seeds use
# 4 KiB blocks, even seeds 1 KiB (sub-page) and sync six times more rarely.
# Each target first runs the workload of seeds 1 and 2 uncut (calibration:
# the cut instant is a seeded fraction of that run's length; the uncut image
# must check clean and intact too).
# Usage: powercut.sh DISK TARGET FIRST-SEED LAST-SEED  (TAP on stdout)
set -u
repo=$(pwd)
build=$repo/build/test rel=$repo/build
tool=$build/tests/host/powercut
disk=$1 target=$2 first=$3 last=$4
tap_prefix=powercut-guest/$target
. "$repo/tests/qemu/guest/tap.sh"
sock=/run/ext4cell/ext4.sock mnt=/tmp/pc kmnt=/tmp/pck log=/tmp/server.log
dev=/dev/mapper/pc
export DM_DISABLE_UDEV=1 ASAN_OPTIONS=detect_leaks=0
dm() { dmsetup --noudevsync "$@"; }
sectors=$(blockdev --getsz "$disk")
linear="0 $sectors linear $disk 0"
dropping="0 $sectors flakey $disk 0 0 180 1 drop_writes"
mkdir -p /run/ext4cell "$mnt" "$kmnt"

# table TABLE: swap the device's table at once (no flush, no freeze: the
# filesystem above must not be told)
table() { dm load pc --table "$1" && dm suspend --nolockfs --noflush pc && dm resume pc; }
dm create pc --table "$linear" || { notok setup "dmsetup create failed"; exit 1; }
[ -b "$dev" ] || { notok setup "no $dev after dmsetup create"; exit 1; }

if [ ! -S "$sock" ]; then
	systemd-socket-activate --accept --seqpacket -l "$sock" "$build/ext4cell-server" --socket \
		2>>"$log" &
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
fi
server_gone() { # until no server instance is left (30 s)
	for _ in $(seq 300); do pgrep -f "^$build/ext4cell-server --socket" >/dev/null || return 0; sleep 0.1; done
	return 1
}
# ec_mount DEV DIR [OPTIONS]: an ext4cell iomap mount through the helper
ec_mount() {
	"$rel/mount.fuse.ext4" -o "iomap=on,kernel${3:+,$3}" "$1" "$2" >/tmp/helper.log 2>&1
}
# fs_mount SEED: mounts $dev on $mnt as the target does
fs_mount() {
	case $target in
	ext4) mount -t ext4 "$dev" "$mnt" ;;
	iomap) ec_mount "$dev" "$mnt" ;;
	iomap-nojournal) ec_mount "$dev" "$mnt" journal=off ;;
	esac
}
# fs_umount: unmounts $mnt and waits until nothing holds the device
fs_umount() {
	timeout 60 umount "$mnt" || return 1
	[ "$target" = ext4 ] || server_gone || return 1
	for _ in $(seq 300); do
		[ "$(dm info -c --noheadings -o open pc)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
fresh() { # fresh SEED: an empty filesystem on the device
	if [ $(($1 % 2)) = 1 ]; then bs=4096; else bs=1024; fi
	mkfs.ext4 -q -F -b "$bs" "$dev"
}

# intact_by HOW IMG-OR-DEV: mounts it (kernel ext4 on a loop copy, or ext4cell
# on the device), checks the sealed files, unmounts, e2fsck -fn
intact_by() {
	local m=$kmnt out
	if [ "$1" = kernel ]; then
		mount -t ext4 -o loop "$2" "$m" 2>&1 || { echo "kernel ext4 refused the image"; return 1; }
	else
		m=$mnt
		ec_mount "$2" "$m" || { cat /tmp/helper.log; tail -5 "$log"; return 1; }
	fi
	out=$("$tool" check "$m" /tmp/sealed.cut 2>&1)
	local rc=$?
	if [ "$1" = kernel ]; then timeout 60 umount "$m"; else timeout 60 umount "$m" && server_gone; fi || {
		echo "umount after the check failed"; return 1; }
	echo "$out"
	[ $rc = 0 ] && e2fsck -fn "$2"
}

# the workload of SEED, uncut: how long it runs (ms, in $took)
calibrate() {
	local t0
	fresh "$1" && fs_mount "$1" || { notok "uncut-$1" "mkfs or mount failed" "$(cat /tmp/helper.log)"; return 1; }
	t0=$(date +%s%3N)
	timeout 600 "$tool" work "$mnt" "$1" /tmp/sealed 2>/tmp/work.log
	local wrc=$?
	took=$(($(date +%s%3N) - t0))
	cp /tmp/sealed /tmp/sealed.cut
	if ! fs_umount; then notok "uncut-$1" "umount failed"; return 1; fi
	# uncut, the workload must run to its end (it stops quietly at an error)
	if [ $wrc != 0 ] || [ -s /tmp/work.log ]; then
		notok "uncut-$1" "workload exit $wrc" "$(cat /tmp/work.log)"
		return 1
	fi
	if [ "$target" = iomap-nojournal ]; then
		check "uncut-$1" e2fsck -fn "$dev"
	else
		check "uncut-$1" intact_by ours "$dev"
	fi
	echo "# uncut workload of seed $1: $took ms"
}

# cut SEED: the workload cut at a seeded instant of the calibrated run
cut() {
	local s=$1 cal=${took_of[$(($1 % 2))]} at wpid
	at=$(((s * 2654435761) % cal + 1))
	fresh "$s" && fs_mount "$s" || { notok "cut-$s/mount" "mkfs or mount failed" "$(cat /tmp/helper.log)"; return 1; }
	desc="$target, $bs-byte blocks, cut at $at of $cal ms"
	: >/tmp/sealed
	"$tool" work "$mnt" "$s" /tmp/sealed 2>/tmp/work.log &
	wpid=$!
	sleep "$((at / 1000)).$(printf %03d $((at % 1000)))"
	# what was sealed (fsync returned) before the cut; not a half-written line
	cp /tmp/sealed /tmp/sealed.cut
	[ -z "$(tail -c 1 /tmp/sealed.cut)" ] || sed -i '$d' /tmp/sealed.cut
	table "$dropping" || { notok "cut-$s/mount" "the drop_writes table did not load"; return 1; }
	kill -KILL $wpid 2>/dev/null
	wait $wpid 2>/dev/null
	fs_umount || { notok "cut-$s/umount" "$desc: umount after the cut failed"; table "$linear"; return 1; }
	table "$linear" || { notok "cut-$s/umount" "the linear table did not load again"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	echo "# cut-$s: $desc, $(wc -l </tmp/sealed.cut) files sealed before it"
	return 0
}

declare -A took_of
for s in 1 2; do
	calibrate "$s" || exit 1
	took_of[$((s % 2))]=$took
done
broken=0 cuts=0
for s in $(seq "$first" "$last"); do
	cut "$s" || continue
	cuts=$((cuts + 1))
	if [ "$target" = iomap-nojournal ]; then
		e2fsck -fn "$dev" >/dev/null 2>&1 || broken=$((broken + 1))
		continue
	fi
	dd if="$dev" of=/tmp/e2.img bs=1M status=none
	e2fsck -E journal_only -y /tmp/e2.img >/tmp/e2-replay.log 2>&1
	if out=$(e2fsck -fn /tmp/e2.img 2>&1); then ok "cut-$s/e2fsck-replay-clean"; else
		notok "cut-$s/e2fsck-replay-clean" "$desc" "$out"; fi
	dd if="$dev" of=/tmp/k.img bs=1M status=none
	if out=$(intact_by kernel /tmp/k.img 2>&1); then ok "cut-$s/kernel-replay-intact"; else
		notok "cut-$s/kernel-replay-intact" "$desc" "$out"; fi
	if out=$(intact_by ours "$dev" 2>&1); then ok "cut-$s/our-replay-intact"; else
		notok "cut-$s/our-replay-intact" "$desc" "$out"; fi
	rm -f /tmp/e2.img /tmp/k.img
done
[ "$target" = iomap-nojournal ] && echo "# $target: $broken of $cuts cuts left the image unclean"
echo "# $target: broken=$broken cuts=$cuts"
dm remove pc
