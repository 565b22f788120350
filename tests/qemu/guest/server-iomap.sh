#!/bin/bash
# tests/qemu/guest/server-iomap.sh: ext4cell-server in iomap mode, in a guest
# booted with our kernel series (fuse.enable_iomap=1): mount.fuse.ext4 marks
# the connection and hands it to the socket-activated server (as the units do,
# without systemd), which must negotiate iomap. Then, on 4 KiB and 1 KiB
# (sub-page) block filesystems: streaming buffered and O_DIRECT writes and
# reads, a hole punched past EOF, a shared mmap written, closed and unmapped
# just before umount (the raw device must hold it the moment umount returns),
# FIEMAP against debugfs, SEEK_DATA/SEEK_HOLE, the POSIX suite, no FUSE
# READ/WRITE for file data (the server's request counts), e2fsck -fn clean;
# the server killed during a streaming write: the writer gets an error, umount
# works, e2fsck repairs; iomap-fsx, three seeds, and the iomap-race cases on
# 1 KiB blocks.
# Prints 'ok - iomap-server/NAME' or 'not ok - iomap-server/NAME' with '# '
# diagnostics. PART "fs" runs all but iomap-fsx and iomap-race, "fsx" only
# those (on the first DISK), "all" (the default) both; the suite runs the two
# parts in two guests at once. Usage: server-iomap.sh DISK DISK|- [PART]
set -u
repo=$(pwd)
build=$repo/build/test rel=$repo/build
sock=/run/ext4cell/ext4.sock mnt=/tmp/ec
log=/tmp/server.log
d4=$1 d1=$2 part=${3:-all}
ok() { echo "ok - iomap-server/$1"; }
notok() {
	echo "not ok - iomap-server/$1"
	shift
	for d in "$@"; do
		if [ -f "$d" ]; then tail -n 25 "$d" | sed 's/^/# /'; else echo "# $d"; fi
	done
}
check() { # check NAME CMD...: ok when CMD succeeds, its output as diagnostics
	local name=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then ok "$name"; else notok "$name" /tmp/check.out; fi
}

mkdir -p /run/ext4cell "$mnt"
export ASAN_OPTIONS=detect_leaks=0
systemd-socket-activate --accept --seqpacket -l "$sock" "$build/ext4cell-server" --socket \
	2>>"$log" &
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done

# mount DEV NAME: mounts DEV on $mnt through the helper, checks the mode
mount_ec() {
	if ! "$rel/mount.fuse.ext4" -v -o iomap=on,kernel "$1" "$mnt" >/tmp/helper.log 2>&1; then
		notok "$2/mount" /tmp/helper.log "$log"
		return 1
	fi
	if grep -qx "mount.fuse.ext4: the kernel allows FUSE iomap on this mount" /tmp/helper.log &&
	   grep -qx "mount.fuse.ext4: the server accepts $1 (iomap mode)" /tmp/helper.log; then
		ok "$2/mount"
	else
		notok "$2/mount" /tmp/helper.log "$log"
	fi
}
# umount_ec: umount, and the server instance's request counts from its log
umount_ec() {
	umount "$mnt" || return 1
	for _ in $(seq 100); do pgrep -f "^$build/ext4cell-server --socket" >/dev/null || break; sleep 0.1; done
	tail -n 5 "$log" | grep "requests:" | tail -1 >/tmp/counts
}

# same DEV FILE WANT: the raw device holds WANT's bytes as FILE (debugfs)
same() { debugfs -R "dump $2 /tmp/raw" "$1" >/dev/null 2>&1 && cmp /tmp/raw "$3"; }

run_fs() { # run_fs DEV BLOCKSIZE
	local dev=$1 bs=$2 n=fs$2
	mkfs.ext4 -q -F -b "$bs" "$dev" || { notok "$n/mkfs"; return; }
	mount_ec "$dev" "$n" || return
	head -c 64M /dev/urandom >/tmp/big
	check "$n/stream-buffered" bash -c "dd if=/tmp/big of=$mnt/big bs=1M status=none conv=fsync &&
		echo 3 >/proc/sys/vm/drop_caches && cmp /tmp/big $mnt/big"
	head -c 16M /tmp/big >/tmp/dio.want
	check "$n/stream-direct" bash -c "dd if=/tmp/dio.want of=$mnt/dio bs=1M oflag=direct status=none &&
		dd if=$mnt/dio of=/tmp/dio.back bs=1M iflag=direct status=none && cmp /tmp/dio.back /tmp/dio.want"
	python3 - "$mnt/sparse" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR)
for i in range(64):
    os.pwrite(fd, bytes([i + 1]) * 8192, i * 65536)
os.close(fd)
PY
	check "$n/seek" python3 - "$mnt/sparse" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(63):
    assert os.lseek(fd, i * 65536 + 100, os.SEEK_DATA) == i * 65536 + 100
    assert os.lseek(fd, i * 65536 + 100, os.SEEK_HOLE) == i * 65536 + 8192, i
    assert os.lseek(fd, i * 65536 + 8192, os.SEEK_DATA) == (i + 1) * 65536, i
PY
	filefrag -v -b"$bs" "$mnt/sparse" >/tmp/fiemap 2>&1
	mkdir -p "$mnt/posix"
	check "$n/posix" "$build/tests/host/posix" "$mnt/posix" "iomap-$bs"
	python3 - "$mnt/mm" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR)
os.ftruncate(fd, 1 << 20)
m = mmap.mmap(fd, 1 << 20, mmap.MAP_SHARED)
os.close(fd)
m[:] = bytes(range(256)) * 4096
m.close()
PY
	python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 4096)" >/tmp/mm.want
	# mtime and ctime move on every write path (the kernel owns them and
	# sends them to the server); what stat shows last is what the image keeps
	check "$n/times" python3 - "$mnt/t" <<'PY'
import mmap, os, sys, time
p = sys.argv[1]
fd = os.open(p, os.O_CREAT | os.O_RDWR)
os.ftruncate(fd, 1 << 16)
def moved(what, op):
    before = os.stat(p)
    time.sleep(0.02)
    op()
    after = os.stat(p)
    assert after.st_mtime_ns > before.st_mtime_ns and after.st_ctime_ns > before.st_ctime_ns, \
        (what, before.st_mtime_ns, after.st_mtime_ns)
moved("buffered", lambda: os.pwrite(fd, b"b" * 4096, 0))
dfd = os.open(p, os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
moved("direct", lambda: os.pwritev(dfd, [buf], 8192))
m = mmap.mmap(fd, 1 << 16, mmap.MAP_SHARED)
def store():
    m[100:104] = b"mmap"
    m.flush()
moved("mmap", store)
m.close()
os.close(dfd)
os.close(fd)
open("/tmp/t.mtime", "w").write("%d\n" % os.stat(p).st_mtime)
PY
	# a hole punched from inside the file to past EOF zeroes the block that
	# holds EOF on the device too, not only in the page cache
	python3 -c "import sys; sys.stdout.buffer.write(b'\xaa' * 1024 + bytes(3976))" >/tmp/punch.want
	check "$n/punch-past-eof" bash -c "head -c 5000 /dev/zero | tr '\\0' '\\252' >$mnt/punch &&
		fallocate -p -o 1024 -l 10000 $mnt/punch && sync -f $mnt/punch &&
		echo 3 >/proc/sys/vm/drop_caches && cmp $mnt/punch /tmp/punch.want"
	if umount_ec; then ok "$n/umount"; else notok "$n/umount" "$log"; return; fi
	check "$n/mmap-durable-at-umount" same "$dev" /mm /tmp/mm.want
	check "$n/times-on-device" bash -c "[ \"\$(debugfs -R 'stat /t' $dev 2>/dev/null |
		sed -n 's/^ *mtime: 0x\([0-9a-f]*\):.*/\1/p')\" = \"\$(printf %08x \$(cat /tmp/t.mtime))\" ] ||
		{ debugfs -R 'stat /t' $dev; cat /tmp/t.mtime; exit 1; }"
	check "$n/big-on-device" same "$dev" /big /tmp/big
	check "$n/punch-on-device" same "$dev" /punch /tmp/punch.want
	# FIEMAP (through the mount) against the extent tree (debugfs, unmounted),
	# both in filesystem blocks: logical and physical start of each extent
	awk '/^ *[0-9]+:/ {gsub(/[.:]/, " "); print $2, $4}' /tmp/fiemap >/tmp/fiemap.ext
	debugfs -R "ex /sparse" "$dev" 2>/dev/null | awk 'NR > 1 && $1 + 0 == $2 + 0 {print $5, $8}' \
		>/tmp/debugfs.ext
	check "$n/fiemap-matches-debugfs" bash -c "[ -s /tmp/fiemap.ext ] && diff /tmp/fiemap.ext /tmp/debugfs.ext ||
		{ cat /tmp/fiemap; exit 1; }"
	check "$n/no-file-data-through-fuse" bash -c "grep -Eq ' 0 READ, 0 WRITE' /tmp/counts ||
		{ cat /tmp/counts; exit 1; }"
	check "$n/e2fsck" e2fsck -fn "$dev"
}

# the server killed during a streaming write
kill_server() {
	mkfs.ext4 -q -F "$d4"
	if mount_ec "$d4" kill; then
		dd if=/dev/zero of="$mnt/w" bs=1M count=200 oflag=direct status=none 2>/tmp/dd.err &
		dd_pid=$!
		sleep 2
		pkill -KILL -f "^$build/ext4cell-server --socket"
		for _ in $(seq 600); do kill -0 $dd_pid 2>/dev/null || break; sleep 0.1; done
		kill -0 $dd_pid 2>/dev/null && rc=124 || { wait $dd_pid; rc=$?; }
		# the writer sees the server gone (ENOTCONN, or EIO from a mapping), not a hang
		if [ $rc != 0 ] && [ $rc != 124 ] && grep -Eq "Transport endpoint|Input/output|Software caused" /tmp/dd.err
		then
			ok "kill/writer-error"
		else
			notok "kill/writer-error" "dd exit $rc" /tmp/dd.err
		fi
		check kill/umount timeout 30 umount "$mnt"
		e2fsck -fy "$d4" >/tmp/fsck.log 2>&1
		check kill/e2fsck-repairs e2fsck -fn "$d4"
	fi
}

# iomap-fsx: seeded random buffered, O_DIRECT and mmap I/O, truncates,
# fallocate, syncs, checked against a shadow copy and on the raw device,
# then the iomap-race cases, on 1 KiB blocks (sub-page: several blocks per folio)
fsx() {
	mkfs.ext4 -q -F -b 1024 "$d4"
	if mount_ec "$d4" fsx; then
		: >"$mnt/w"
		for seed in 1 2 3; do
			check "fsx/seed-$seed" "$build/tests/iomap-fsx" "$mnt" "$d4" $seed "${EC_FSX_OPS:-6000}" \
				--any-server
		done
		# iomap-race: concurrent O_DIRECT, buffered and mmap writers and
		# readers, truncate against writeback
		for r in "direct-buffered 600" "truncate-writeback 2000" "readers 600"; do
			set -- $r
			check "race/$1" "$build/tests/iomap-race" "$mnt" "$d4" $1 $2 --any-server
		done
		umount_ec
		check fsx/e2fsck e2fsck -fn "$d4"
	fi
}

if [ "$part" != fsx ]; then
	run_fs "$d4" 4096
	run_fs "$d1" 1024
	kill_server
fi
[ "$part" = fs ] || fsx
