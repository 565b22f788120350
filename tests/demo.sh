#!/bin/bash
# tests/demo.sh: what `make demo` runs after building: boot the test kernel in
# QEMU with systemd as PID 1 (tests/qemu/vm --systemd; the Debian root image is
# built once by tests/qemu/mkrootfs, a few minutes, then cached) and run
# tests/qemu/guest/demo.sh there with the release build: an unprivileged user
# mounts an ext4 image through mount.fuse.ext4 and the socket-activated server.
set -u
cd "$(dirname "$0")/.."
tests/qemu/vm --systemd --timeout 600 -- tests/qemu/guest/demo.sh "$PWD/build"
rc=$?
[ $rc = 0 ] && echo "make demo: ok" || echo "make demo: FAILED (status $rc)"
exit $rc
