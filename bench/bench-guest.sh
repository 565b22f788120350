#!/bin/bash
# bench/bench-guest.sh: the guest side of `make bench` (bench/bench.sh). For
# each system and round: a fresh mkfs.ext4 on /dev/vda, then every job on a
# mount of its own (so reads start cold, and an ext4cell server's request
# counts at exit belong to one job). Prints one line per measurement,
#   R SYSTEM JOB ROUND VALUE        (a rate: higher is faster)
#   Q SYSTEM JOB ROUND COUNTS       (FUSE requests an ext4cell server served)
# and leaves the formatting to the host.
# usage: bench-guest.sh ROUNDS MIB FILES SECONDS SYSTEM...
set -u
repo=$(pwd) dev=${BENCH_DEV:-/dev/vda} mnt=/tmp/m sock=/run/ext4cell/ext4.sock log=/tmp/server.log
rounds=$1 mib=$2 files=$3 secs=$4
shift 4
mkdir -p "$mnt" /run/ext4cell
. "$(dirname "$0")/guest-lib.sh"
start_ec_listener "$repo" "$sock" "$log" || exit 1
tar -C /usr/include -cf /tmp/src.tar linux asm-generic || exit 1
entries=$(tar -tf /tmp/src.tar | wc -l)

# mount_fs SYSTEM: mounts /dev/vda on $mnt; sets mount_ms to the milliseconds
# from the mount command's start to the mount being visible
fuse2fs_pid= mount_ms=
mount_fs() {
	local t0
	t0=$(date +%s%N)
	case $1 in
	ext4) mount -t ext4 "$dev" "$mnt" ;;
	fuse2fs) fuse2fs -f -o allow_other "$dev" "$mnt" >>/tmp/fuse2fs.log 2>&1 &
		fuse2fs_pid=$! ;;
	classic) "$repo/build/mount.fuse.ext4" -o iomap=off "$dev" "$mnt" ;;
	iomap) "$repo/build/mount.fuse.ext4" -o iomap=on "$dev" "$mnt" ;;
	esac || return 1
	bounded 100 mountpoint -q "$mnt" || return 1
	mount_ms=$((($(date +%s%N) - t0) / 1000000))
}
# umount_fs SYSTEM: unmounts and waits until no server holds the device
umount_fs() {
	umount "$mnt" || return 1
	case $1 in
	fuse2fs) bounded 200 exited "$fuse2fs_pid" && wait "$fuse2fs_pid" ;;
	classic | iomap) bounded 200 no_server ;;
	esac
}
no_server() { ! pgrep -x ext4cell-server >/dev/null; }
# exited PID: the child is gone or a zombie waiting to be reaped
exited() { ! kill -0 "$1" 2>/dev/null || [[ $(ps -o stat= -p "$1") == Z* ]]; }
# bounded N CMD...: retries CMD every 0.05 s, at most N times
bounded() {
	local n=$1
	shift
	until "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.05
	done
}

# fio_rate FIO-ARGS...: one fio job on $mnt/f; MB/s for 1 MiB blocks, IOPS else
fio_rate() {
	fio --name=job --filename="$mnt/f" --fallocate=none --output-format=json "$@" |
		python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print("%.1f" % (d["bw_bytes"] / 1e6 if "--bs=1M" in sys.argv else d["iops"]))' "$@"
}
# secs_rate N CMD...: N divided by the seconds CMD takes (operations/s)
secs_rate() {
	local n=$1 t0 t1
	shift
	t0=$(date +%s%N)
	"$@" >/dev/null || return 1
	t1=$(date +%s%N)
	awk -v n="$n" -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", n / (ns / 1e9) }'
}
stream="--bs=1M --size=${mib}M"
random="--bs=4k --size=${mib}M --runtime=$secs --time_based"
declare -A jobs=(
	[seq-write]="fio_rate --rw=write $stream --end_fsync=1"
	[seq-read]="fio_rate --rw=read $stream"
	[direct-write]="fio_rate --rw=write $stream --direct=1"
	[direct-read]="fio_rate --rw=read $stream --direct=1"
	[rand-read]="fio_rate --rw=randread $random"
	[rand-write]="fio_rate --rw=randwrite $random --end_fsync=1"
	[direct-rand-read-qd1]="fio_rate --rw=randread $random --direct=1"
	[direct-rand-write-qd1]="fio_rate --rw=randwrite $random --direct=1"
	[direct-rand-read-qd16]="fio_rate --rw=randread $random --direct=1 --ioengine=libaio --iodepth=16"
	[direct-rand-write-qd16]="fio_rate --rw=randwrite $random --direct=1 --ioengine=libaio --iodepth=16"
	[tar-x-files]="secs_rate $entries untar"
	[cold-find-stat]="secs_rate $entries find $mnt -printf %s"
)
order="seq-write seq-read direct-write direct-read rand-read rand-write direct-rand-read-qd1
	direct-rand-write-qd1 direct-rand-read-qd16 direct-rand-write-qd16 small-files tar-x-files
	cold-find-stat"
untar() { tar -C "$mnt" -xf /tmp/src.tar && sync -f "$mnt"; }

for system in "$@"; do
	for round in $(seq "$rounds"); do
		mkfs.ext4 -q -F -b 4096 "$dev" || exit 1
		for job in $order; do
			mount_fs "$system" || { echo "bench: mounting $system failed"; tail "$log"; exit 1; }
			[ "$job" = seq-write ] &&
				echo "R $system mounts-per-s $round $(awk -v ms="$mount_ms" 'BEGIN { printf "%.1f", 1000 / (ms + 0.5) }')"
			if [ "$job" = small-files ]; then
				"$repo/build/bench/smallfiles" "$mnt" "$files" |
					awk -v s="$system" -v r="$round" -v n="$files" \
						'{ printf "R %s %s-per-s %s %.1f\n", s, $1, r, n / ($2 > 0.001 ? $2 : 0.001) }'
			else
				v=$(${jobs[$job]}) && echo "R $system $job $round $v"
			fi
			umount_fs "$system" || { echo "bench: unmounting $system failed"; exit 1; }
			case $system in
			classic | iomap) echo "Q $system $job $round $(grep "requests:" "$log" | tail -1 |
				sed -e 's/.*requests: //' -e 's/ in all/ all/' -e 's/ (.*//')" ;;
			esac
		done
	done
done
