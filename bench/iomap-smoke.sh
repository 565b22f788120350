#!/bin/bash
# bench/iomap-smoke.sh: a performance smoke run of the FUSE iomap data path (a
# benchmark, never a test): in one QEMU guest, streaming buffered and O_DIRECT
# writes and reads of SIZE MiB through the file of tests/iomap/iomap-test-server
# (the kernel does the I/O, the server only maps) and through a kernel ext4
# file on the same virtual disk (ext4 in its first 512 MiB, the test server's
# blocks at 512-768 MiB). Prints MB/s of each and the ratio iomap/ext4 (1.00:
# as fast as kernel ext4). Uses the bench kernel (make kernel KCONFIG=bench)
# when it is built, else the test kernel, whose debugging makes all numbers
# small. TCG: absolute numbers say little, ratios more.
# usage: bench/iomap-smoke.sh [SIZE-MIB]   (default 128)
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
size=${1:-128}
kernel=$repo/build/kernel/bench/bzImage
[ -f "$kernel" ] || kernel=$repo/build/kernel/test/bzImage
[ -f "$kernel" ] || { echo "bench: no kernel built (make kernel KCONFIG=bench)" >&2; exit 1; }
make -s -C "$repo" BUILD=build/smoke build/smoke/tests/iomap-test-server || exit 1
tmp=$(mktemp -d /tmp/ext4cell-smoke.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
truncate -s 1G "$tmp/disk.img"
echo "# kernel: ${kernel#"$repo"/}, $size MiB per run"
"$repo/tests/qemu/vm" -q --timeout 1800 --kernel "$kernel" --disk "$tmp/disk.img" -- \
	bench/iomap-smoke-guest.sh build/smoke/tests "$size" 2>&1 | sed 's/^guest: //'
