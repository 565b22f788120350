#!/bin/bash
# bench/fuse2fs-compare.sh: ext4cell-server (classic FUSE mode) against Debian's
# fuse2fs on the same fresh ext4 image, in one run: streaming 1 GiB write and
# read (remounted in between so the read comes from the server), 10 000 file
# create/stat/unlink, tar x of /usr/include, and 500 appends of 4 KiB each
# followed by fsync. ext4cell runs twice: journaled (the default) and with
# -o journal=off (what journaled writes cost). Prints seconds, the ratio
# fuse2fs/ext4cell (above 1: ext4cell is faster) and the ratio
# ext4cell/ext4cell-journal=off (the cost of the journal). A benchmark, not a test.
# usage: bench/fuse2fs-compare.sh [BUILD-DIR]   (default build/, needs root)
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
work=$(mktemp -d /tmp/ext4cell-bench.XXXXXX)
trap 'umount "$work/mnt" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/mnt"
tar -C /usr -cf "$work/src.tar" include

start() { # start NAME: mount a fresh image with that server in the background
	rm -f "$work/img"
	truncate -s 4G "$work/img" && mkfs.ext4 -q -F "$work/img"
	restart "$1" || { echo "bench: $1 did not mount" >&2; exit 1; }
}
stop() { umount "$work/mnt"; wait "$pid"; }
remount() {
	umount "$work/mnt"
	wait "$pid"
	restart "$1" || { echo "bench: $1 did not mount again" >&2; exit 1; }
}
restart() { # restart NAME: mount the image as it is; fails if not mounted in 10 s
	case $1 in
	ext4cell) "$build/ext4cell-server" -o kernel "$work/img" "$work/mnt" 2>>"$work/log" & ;;
	nojournal) "$build/ext4cell-server" -o kernel,journal=off "$work/img" "$work/mnt" \
		2>>"$work/log" & ;;
	fuse2fs) fuse2fs -f -o allow_other "$work/img" "$work/mnt" >>"$work/log" 2>&1 & ;;
	esac
	pid=$!
	for _ in $(seq 100); do mountpoint -q "$work/mnt" && return 0; sleep 0.1; done
	return 1
}
secs() { local t0; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $t0" | bc; }

declare -A r
for s in fuse2fs ext4cell nojournal; do
	start $s
	r[$s,write]=$(secs dd if=/dev/zero of="$work/mnt/big" bs=1M count=1024 conv=fsync)
	remount $s
	r[$s,read]=$(secs dd if="$work/mnt/big" of=/dev/null bs=1M)
	rm -f "$work/mnt/big"
	mkdir "$work/mnt/small"
	out=$("$build/bench/smallfiles" "$work/mnt/small" 10000)
	for k in create stat unlink; do r[$s,$k]=$(awk -v k=$k '$1 == k {print $2}' <<<"$out"); done
	mkdir "$work/mnt/tree"
	r[$s,tar]=$(secs tar -C "$work/mnt/tree" -xf "$work/src.tar")
	r[$s,fsync]=$("$build/bench/smallfiles" "$work/mnt" 500 fsync | awk '{print $2}')
	stop
done
printf '%-10s %10s %10s %18s %16s %14s\n' test fuse2fs ext4cell ext4cell-nojournal \
	fuse2fs/ext4cell journal-cost
for k in write read create stat unlink tar fsync; do
	printf '%-10s %10.2f %10.2f %18.2f %16.2f %14.2f\n' "$k" "${r[fuse2fs,$k]}" \
		"${r[ext4cell,$k]}" "${r[nojournal,$k]}" \
		"$(echo "${r[fuse2fs,$k]} / ${r[ext4cell,$k]}" | bc -l)" \
		"$(echo "${r[ext4cell,$k]} / ${r[nojournal,$k]}" | bc -l)"
done
