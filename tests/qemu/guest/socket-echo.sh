#!/bin/bash
# tests/qemu/guest/socket-echo.sh: in a systemd-mode guest, load the echo socket
# unit from the repository, connect to it and check a per-connection instance
# answered. Prints 'socket-echo ok' or 'socket-echo FAILED: why'.
set -u
units=$(cd "$(dirname "$0")/../units" && pwd)
fail() { echo "socket-echo FAILED: $*"; exit 1; }
[ "$(readlink /proc/1/exe)" = /usr/lib/systemd/systemd ] || fail "PID 1 is $(readlink /proc/1/exe), not systemd"
systemctl link "$units/ext4cell-echo.socket" "$units/ext4cell-echo@.service" >/dev/null ||
	fail "systemctl link of the tree's units"
systemctl start ext4cell-echo.socket || fail "start ext4cell-echo.socket"
reply=$(echo hello | timeout 20 nc -N -U /run/ext4cell-echo.sock 2>&1) ||
	fail "connect: $reply"
case "$reply" in
"echo from ext4cell-echo@"*".service: hello") ;;
*) fail "unexpected reply '$reply'" ;;
esac
echo "socket-echo ok ($reply)"
