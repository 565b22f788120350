#!/bin/bash
# bench/server-compare.sh: ext4cell-server in iomap mode and in classic mode
# against kernel ext4, side by side in one QEMU guest on the same virtual disk
# (a benchmark, never a test): streaming buffered and O_DIRECT writes and
# reads of SIZE MiB, 4 KiB random O_DIRECT reads and writes for 10 s; each the
# best of two rounds, printed with ratios to kernel ext4 (1.00: as fast). The
# release build (build/), mounted through mount.fuse.ext4 and the
# socket-activated server. Uses the bench kernel when built, else the test
# kernel (KASAN, lockdep: everything slow, the ratios still side by side).
# usage: bench/server-compare.sh [SIZE-MIB]   (default 128)
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
size=${1:-128}
kernel=${EC_BENCH_KERNEL:-$repo/build/kernel/bench/bzImage}
[ -f "$kernel" ] || kernel=$repo/build/kernel/test/bzImage
[ -f "$kernel" ] || { echo "bench: no kernel built (make kernel KCONFIG=bench)" >&2; exit 1; }
make -s -C "$repo" build/ext4cell-server build/mount.fuse.ext4 || exit 1
tmp=$(mktemp -d /tmp/ext4cell-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
truncate -s 1G "$tmp/disk.img"
echo "# kernel: ${kernel#"$repo"/}, $size MiB per streaming run"
"$repo/tests/qemu/vm" -q --timeout 3000 --kernel "$kernel" --disk "$tmp/disk.img" -- \
	bench/server-compare-guest.sh "$size" 2>&1 | sed 's/^guest: //'
