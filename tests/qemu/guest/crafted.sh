#!/bin/bash
# tests/qemu/guest/crafted.sh: crafted images (tests/images/crafted.sh, seeds
# FIRST-LAST of every family) in the test kernel's guest as users mount them:
# mount.fuse.ext4 -o iomap=on|off (MODE iomap or classic), a loop device, the
# socket-activated sanitizer server (tests/qemu/guest/instance.sh logs how
# each instance ended). Then: the bystander disk /dev/vda kept its checksum,
# the kernel log has no splat (tests/qemu/scan-log), no loop device is left.
# Prints TAP lines named crafted-MODE/..., and the table of outcomes as
# lines starting with "report: ".
# Usage: crafted.sh MODE FIRST LAST
set -u
repo=$(pwd) mode=$1 first=$2 last=$3
sock=/run/ext4cell/ext4.sock
export EC_INSTANCE_LOG=/tmp/instances.log ASAN_OPTIONS=detect_leaks=0
mkdir -p /run/ext4cell
: >"$EC_INSTANCE_LOG"
systemd-socket-activate --accept --seqpacket -l "$sock" \
	bash "$repo/tests/qemu/guest/instance.sh" "$repo/build/test/ext4cell-server" --socket \
	2>>"$EC_INSTANCE_LOG" &
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
sum=$(md5sum </dev/vda)
bash "$repo/tests/images/crafted.sh" "$first" "$last" --via-helper "$mode" --report /tmp/report.md
sed 's/^/report: /' /tmp/report.md 2>/dev/null
if [ "$sum" = "$(md5sum </dev/vda)" ]; then echo "ok - crafted-$mode/bystander-disk"
else echo "not ok - crafted-$mode/bystander-disk"; fi
dmesg >/tmp/klog
if bad=$(tests/qemu/scan-log /tmp/klog 2>&1); then echo "ok - crafted-$mode/kernel-log"
else echo "not ok - crafted-$mode/kernel-log"; echo "$bad" | head -20 | sed 's/^/# /'; fi
if [ -z "$(losetup -a)" ]; then echo "ok - crafted-$mode/no-loop-left"
else echo "not ok - crafted-$mode/no-loop-left"; losetup -a | sed 's/^/# /'; fi
