#!/bin/bash
# tests/demo.sh: what `make demo` runs after building: boot the test kernel in
# QEMU with one scratch disk and run tests/qemu/guest/demo.sh in the guest.
set -u
cd "$(dirname "$0")/.."
img=$(mktemp /tmp/ext4cell-demo.XXXXXX.img)
trap 'rm -f "$img"' EXIT
truncate -s 256M "$img"
tests/qemu/vm --timeout 600 --disk "$img" -- tests/qemu/guest/demo.sh /dev/vda
rc=$?
[ $rc = 0 ] && echo "make demo: ok" || echo "make demo: FAILED (status $rc)"
exit $rc
