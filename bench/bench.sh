#!/bin/bash
# bench/bench.sh: `make bench`. One QEMU guest on the bench kernel, one virtio
# disk (a raw file on the host's tmpfs, so the host's own disk stays out of
# the numbers), a fresh mkfs.ext4 per system and round, for kernel ext4,
# Debian's fuse2fs, ext4cell classic and ext4cell iomap (the release build,
# through mount.fuse.ext4 and the socket-activated server): fio streaming and
# 4 KiB random jobs, buffered and O_DIRECT (queue depth 1 and 16), 20 000 file
# create/stat/unlink, tar x of the kernel's UAPI headers, a cold find+stat and
# the mount time. Prints the table (median and minimum of the rounds, ratios
# of the medians to kernel ext4, ext4cell's FUSE requests per job) and writes
# it to bench/results/latest.md. A benchmark: it measures, it gates nothing.
# Settings (make variables or environment):
#   BENCH_ROUNDS=3 BENCH_MIB=256 BENCH_FILES=20000 BENCH_SECONDS=10
#   BENCH_SYSTEMS="ext4 fuse2fs classic iomap"
#   BENCH_KERNEL=FILE: boot that bzImage instead of building the bench kernel
#   (to compare kernels, each run with ext4 as the reference)
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${BENCH_ROUNDS:-3} mib=${BENCH_MIB:-256} files=${BENCH_FILES:-20000}
secs=${BENCH_SECONDS:-10} systems=${BENCH_SYSTEMS:-ext4 fuse2fs classic iomap}
die() { echo "bench: $*" >&2; exit 1; }
for v in "$rounds" "$mib" "$files" "$secs"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS, BENCH_MIB, BENCH_FILES and BENCH_SECONDS are positive numbers (got '$v')"
done
for s in $systems; do
	case $s in ext4 | fuse2fs | classic | iomap) ;; *) die "unknown system '$s' in BENCH_SYSTEMS" ;; esac
done
for p in fio fuse2fs python3 systemd-socket-activate; do
	command -v "$p" >/dev/null || die "$p is not installed (run 'make deps')"
done
make -s -C "$repo" all || die "the build failed"
kernel=${BENCH_KERNEL:-$repo/build/kernel/bench/bzImage}
if [ -z "${BENCH_KERNEL:-}" ]; then
	bash "$repo/kernel/build.sh" bench >&2 || die "the bench kernel did not build"
fi
[ -f "$kernel" ] || die "no kernel $kernel"

tmp=$(mktemp -d /dev/shm/ext4cell-bench.XXXXXX) || die "no room on /dev/shm"
trap 'rm -rf "$tmp"' EXIT
truncate -s $((mib * 4 + 1024))M "$tmp/disk.img"
start=$(date +%s)
"$repo/tests/qemu/vm" -q --smp 2 --timeout 7200 --kernel "$kernel" \
	--disk "$tmp/disk.img" -- bench/bench-guest.sh "$rounds" "$mib" "$files" "$secs" $systems \
	>"$tmp/raw" 2>&1
rc=$?
sed -n 's/^guest: //p' "$tmp/raw" | grep -v '^[RQ] ' >&2
[ $rc = 0 ] || { grep -v '^guest: ' "$tmp/raw" >&2; die "the guest run failed (status $rc)"; }
mkdir -p "$repo/bench/results"
sed -n 's/^guest: //p' "$tmp/raw" | python3 "$repo/bench/table.py" "$rounds" "$mib" "$files" \
	"$secs" "$(($(date +%s) - start))" "${kernel#"$repo"/}" $systems \
	>"$repo/bench/results/latest.md" || die "no results"
cat "$repo/bench/results/latest.md"
