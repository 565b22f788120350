#!/bin/bash
# bench/server-compare-guest.sh: the guest side of bench/server-compare.sh.
# usage: server-compare-guest.sh SIZE-MIB (with /dev/vda of 1 GiB)
set -u
repo=$(pwd) size=$1 dev=/dev/vda mnt=/tmp/m sock=/run/ext4cell/ext4.sock
mkdir -p "$mnt" /run/ext4cell
systemd-socket-activate --accept --seqpacket -l "$sock" "$repo/build/ext4cell-server" --socket \
	2>/tmp/server.log &
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done

. "$(dirname "$0")/guest-lib.sh"
# 4 KiB random reads or writes (O_DIRECT) over FILE for 10 s: operations/s
random_io() {
	python3 - "$1" "$2" <<'PY'
import mmap, os, random, sys, time
path, write = sys.argv[1], sys.argv[2] == "w"
fd = os.open(path, os.O_RDWR | os.O_DIRECT)
blocks = os.fstat(fd).st_size // 4096
buf = mmap.mmap(-1, 4096)
random.seed(1)
n, end = 0, time.monotonic() + 10
while time.monotonic() < end:
    off = random.randrange(blocks) * 4096
    if write:
        os.pwritev(fd, [buf], off)
    else:
        os.preadv(fd, [buf], off)
    n += 1
os.fsync(fd)
print("%.0f" % (n / 10))
PY
}
declare -A r
measure() { # NAME MOUNT-COMMAND...: mkfs, mount, best of two rounds of each
	local name=$1 v
	shift
	mkfs.ext4 -q -F -b 4096 "$dev" || exit 1
	"$@" || { echo "bench: mounting for $name failed"; cat /tmp/server.log; exit 1; }
	for _ in 1 2; do
		v=$(mbps dd if=/dev/zero of="$mnt/f" bs=1M count="$size" conv=fsync)
		r[$name,buffered-write]=$(best "${r[$name,buffered-write]:-0}" "$v")
		cold
		v=$(mbps dd if="$mnt/f" of=/dev/null bs=1M)
		r[$name,buffered-read]=$(best "${r[$name,buffered-read]:-0}" "$v")
		v=$(mbps dd if=/dev/zero of="$mnt/f" bs=1M count="$size" oflag=direct conv=fsync,notrunc)
		r[$name,direct-write]=$(best "${r[$name,direct-write]:-0}" "$v")
		cold
		v=$(mbps dd if="$mnt/f" of=/dev/null bs=1M iflag=direct)
		r[$name,direct-read]=$(best "${r[$name,direct-read]:-0}" "$v")
		v=$(random_io "$mnt/f" r)
		r[$name,4k-random-read]=$(best "${r[$name,4k-random-read]:-0}" "$v")
		v=$(random_io "$mnt/f" w)
		r[$name,4k-random-write]=$(best "${r[$name,4k-random-write]:-0}" "$v")
	done
	umount "$mnt"
	sleep 1
}
ec() { "$repo/build/mount.fuse.ext4" -o "$1" "$dev" "$mnt"; }
measure ext4 mount -t ext4 "$dev" "$mnt"
measure classic ec iomap=off
measure iomap ec iomap=on
grep "requests:" /tmp/server.log | sed 's/^/# /'
printf '%-16s %10s %10s %10s %9s %9s\n' "" "ext4" "classic" "iomap" "classic/" "iomap/"
for k in buffered-write buffered-read direct-write direct-read 4k-random-read 4k-random-write; do
	printf '%-16s %10s %10s %10s %9s %9s\n' "$k" "${r[ext4,$k]}" "${r[classic,$k]}" \
		"${r[iomap,$k]}" \
		"$(awk -v a="${r[classic,$k]}" -v b="${r[ext4,$k]}" 'BEGIN { printf "%.2f", a / b }')" \
		"$(awk -v a="${r[iomap,$k]}" -v b="${r[ext4,$k]}" 'BEGIN { printf "%.2f", a / b }')"
done
echo "(MB/s for streaming, operations/s for 4k random; ratios against kernel ext4)"
