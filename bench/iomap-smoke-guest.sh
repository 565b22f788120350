#!/bin/bash
# bench/iomap-smoke-guest.sh: the guest side of bench/iomap-smoke.sh.
# usage: iomap-smoke-guest.sh BINDIR SIZE-MIB (with /dev/vda of 1 GiB)
set -u
bin=$1 size=$2 dev=/dev/vda
mkdir -p /tmp/ext4 /tmp/iomap
mkfs.ext4 -q -F -b 4096 "$dev" 512M && mount -t ext4 "$dev" /tmp/ext4 || exit 1
st=$("$bin/iomap-test-server" --bench "$dev" /tmp/iomap 2>&1)
[ "$st" = "iomap=1 dev=1" ] || { echo "bench: the test server said '$st'"; exit 1; }

. "$(dirname "$0")/guest-lib.sh"
declare -A r
measure() { # NAME FILE: best of two rounds of each
	local k v
	for _ in 1 2; do
		v=$(mbps dd if=/dev/zero of="$2" bs=1M count="$size" conv=fsync)
		r[$1,buffered-write]=$(best "${r[$1,buffered-write]:-0}" "$v")
		cold
		v=$(mbps dd if="$2" of=/dev/null bs=1M)
		r[$1,buffered-read]=$(best "${r[$1,buffered-read]:-0}" "$v")
		v=$(mbps dd if=/dev/zero of="$2" bs=1M count="$size" oflag=direct conv=fsync)
		r[$1,direct-write]=$(best "${r[$1,direct-write]:-0}" "$v")
		cold
		v=$(mbps dd if="$2" of=/dev/null bs=1M iflag=direct)
		r[$1,direct-read]=$(best "${r[$1,direct-read]:-0}" "$v")
	done
}
measure ext4 /tmp/ext4/f
measure iomap /tmp/iomap/w
printf '%-15s %10s %10s %8s\n' "" "ext4 MB/s" "iomap MB/s" "ratio"
for k in buffered-write buffered-read direct-write direct-read; do
	printf '%-15s %10s %10s %8s\n' "$k" "${r[ext4,$k]}" "${r[iomap,$k]}" \
		"$(awk -v a="${r[iomap,$k]}" -v b="${r[ext4,$k]}" 'BEGIN { printf "%.2f", a / b }')"
done
umount /tmp/iomap
umount /tmp/ext4
