#!/bin/bash
# tests/fstests/guest.sh: one fstests run in the plain QEMU guest (the host's
# root, read-only, /tmp a tmpfs) for one TARGET: ext4cell-iomap and
# ext4cell-classic (FSTYP=fuse.ext4 through our mount.fuse.ext4 and the
# socket-activated server, -o iomap=on|off), fuse2fs (FSTYP=fuse.ext4 through
# Debian's fuse2fs) or ext4 (the kernel driver, the reference). TEST_DEV is
# /dev/vda, SCRATCH_DEV /dev/vdb; /dev/vdc receives a tar of the results.
# What the series expects is made here: fstests' users, and in an overlay on
# /usr/sbin mount.fuse.ext4, umount.fuse.ext4 (umount-wait: unmount, then wait
# for the server to let go of the device), mkfs.fuse.ext4 and fsck.fuse.ext4.
# Each test has WATCHDOG seconds; one that runs longer is killed with its
# processes, the FUSE connections aborted and the test and scratch mounts
# detached, and it is reported as "hung".
# Prints one line per test: "fstests: TEST pass|fail|notrun|hung [REASON]".
# Usage: guest.sh TARGET FSTESTS-DIR WATCHDOG CHECK-ARGS...
set -u
target=$1 fst=$2 watchdog=$3
shift 3
repo=$(pwd)
export ASAN_OPTIONS=detect_leaks=0

# fstests' users and groups (_require_user, _require_group)
mkdir -p /tmp/etc /tmp/home
cp /etc/passwd /etc/group /tmp/etc/
for u in fsgqa:2000 fsgqa2:2001 123456-fsgqa:123456; do
	echo "${u%%:*}:x:${u#*:}:${u#*:}::/tmp/home:/bin/bash" >>/tmp/etc/passwd
	echo "${u%%:*}:x:${u#*:}:" >>/tmp/etc/group
done
mount --bind /tmp/etc/passwd /etc/passwd
mount --bind /tmp/etc/group /etc/group

mkdir -p /tmp/sbin/up /tmp/sbin/work
mount -t overlay overlay -o lowerdir=/usr/sbin,upperdir=/tmp/sbin/up,workdir=/tmp/sbin/work /usr/sbin
ln -s /usr/sbin/mkfs.ext4 /usr/sbin/mkfs.fuse.ext4
ln -s /usr/sbin/fsck.ext4 /usr/sbin/fsck.fuse.ext4
fstyp=fuse.ext4 opts=
case $target in
ext4cell-iomap | ext4cell-classic)
	ln -s "$repo/build/mount.fuse.ext4" /usr/sbin/mount.fuse.ext4
	ln -s "$repo/build/tests/umount-wait" /usr/sbin/umount.fuse.ext4
	mkdir -p /run/ext4cell
	systemd-socket-activate --accept --seqpacket -l /run/ext4cell/ext4.sock \
		"$repo/build/ext4cell-server" --socket 2>>/tmp/server.log &
	for _ in $(seq 100); do [ -S /run/ext4cell/ext4.sock ] && break; sleep 0.1; done
	[ "$target" = ext4cell-iomap ] && opts="-o iomap=on" || opts="-o iomap=off"
	;;
fuse2fs)
	# Debian's fuse2fs 1.47.0 has no -o kernel: it means these two
	cat >/usr/sbin/mount.fuse.ext4 <<-'EOF'
	#!/bin/bash
	dev=$1 mnt=$2
	shift 2
	[ "${1:-}" = -o ] && o=${2//kernel/allow_other,default_permissions}
	exec fuse2fs "$dev" "$mnt" -o "${o:-allow_other}"
	EOF
	chmod +x /usr/sbin/mount.fuse.ext4
	ln -s "$repo/build/tests/umount-wait" /usr/sbin/umount.fuse.ext4
	;;
ext4) fstyp=ext4 ;;
*) echo "fstests: unknown target $target"; exit 2 ;;
esac

mkdir -p /tmp/test /tmp/scratch /tmp/results
cat >/tmp/local.config <<EOF
export FSTYP=$fstyp
export TEST_DEV=/dev/vda TEST_DIR=/tmp/test
export SCRATCH_DEV=/dev/vdb SCRATCH_MNT=/tmp/scratch
export RESULT_BASE=/tmp/results
export EXT_MOUNT_OPTIONS="$opts"
EOF
t0=$SECONDS
mkfs.ext4 -F -q /dev/vda || { echo "fstests: cannot mkfs /dev/vda"; exit 1; }
echo "fstests-time: mkfs of TEST_DEV $((SECONDS - t0)) s"

# PID and every process under it
tree() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do tree "$c"; done
}
# The watchdog: the test script check runs now ("tests/FAMILY/NNN"), and when
# it started; past WATCHDOG seconds, kill it and everything under it.
watch_tests() {
	local pid last=0 since
	while sleep 2; do
		pid=$(pgrep -o -f "^/bin/bash (\./|/.*/)tests/[a-z0-9]+/[0-9]+$" || true)
		[ -z "$pid" ] && continue
		if [ "$pid" != "$last" ]; then
			last=$pid since=$SECONDS
		elif [ $((SECONDS - since)) -gt "$watchdog" ]; then
			tr '\0' '\n' </proc/"$pid"/cmdline | grep -oE "[a-z0-9]+/[0-9]+$" >>/tmp/hung
			for a in /sys/fs/fuse/connections/*/abort; do [ -e "$a" ] && echo 1 >"$a"; done
			kill -KILL $(tree "$pid") 2>/dev/null
			# the aborted mounts hold their devices: check mounts afresh
			umount -l /tmp/test /tmp/scratch 2>/dev/null
		fi
	done
}
: >/tmp/hung
mount -t fusectl none /sys/fs/fuse/connections 2>/dev/null
watch_tests &
wpid=$!
# fstests writes into its tree (the .out file a test links to its golden
# output): a writable overlay on the read-only build
mkdir -p /tmp/fst/up /tmp/fst/work /tmp/fst/tree
mount -t overlay overlay -o lowerdir="$fst",upperdir=/tmp/fst/up,workdir=/tmp/fst/work /tmp/fst/tree
cd /tmp/fst/tree
t0=$SECONDS
HOST_OPTIONS=/tmp/local.config ./check "$@" >/tmp/check.out 2>&1
echo "fstests-time: check $((SECONDS - t0)) s"
kill "$wpid" 2>/dev/null
cd "$repo"

# One line per test from check's output: "NAME TIME" or "NAME [not run] WHY"
# or "NAME - output mismatch ..." / "NAME [failed, exit status N]...".
awk '
	/^[a-z0-9]+\/[0-9]+ / {
		t = $1
		if ($0 ~ /\[not run\]/) { sub(/^[^]]*\] */, ""); print "fstests: " t " notrun " $0 }
		else if ($0 ~ /\[expunged\]/) print "fstests: " t " notrun expunged"
		else if ($0 ~ /output mismatch|\[failed/ || $0 ~ / - /) { r = $0; sub(/^[^ ]+ +/, "", r); print "fstests: " t " fail " r }
		else print "fstests: " t " pass"
	}' /tmp/check.out >/tmp/lines
while read -r t; do
	sed -i "s|^fstests: $t fail |fstests: $t hung (killed after ${watchdog} s) |" /tmp/lines
done </tmp/hung
cat /tmp/lines
grep -E "^(Ran|Not run|Failures|Passed)" /tmp/check.out | sed 's/^/fstests-summary: /'
dmesg >/tmp/results/dmesg
cp /tmp/check.out /tmp/server.log /tmp/results/ 2>/dev/null
[ -b /dev/vdc ] && tar -C /tmp -cf /dev/vdc results
if bad=$(tests/qemu/scan-log /tmp/results/dmesg 2>&1); then echo "fstests: kernel-log ok"
else echo "fstests: kernel-log FAIL"; echo "$bad" | head -20 | sed 's/^/# /'; fi
