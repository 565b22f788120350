#!/bin/bash
# tests/qemu/guest/server-iomap.sh: ext4cell-server in iomap mode, in a guest
# booted with our kernel series (fuse.enable_iomap=1): mount.fuse.ext4 marks
# the connection and hands it to the socket-activated server (as the units do,
# without systemd), which must negotiate iomap. Then, on 4 KiB and 1 KiB
# (sub-page) block ext4 filesystems and a 2 KiB block ext3 (block-mapped
# files, no extents): streaming buffered (256 MiB on 4 KiB blocks)
# and O_DIRECT writes and reads, a hole punched past EOF, a shared mmap
# written, closed and unmapped just before umount (the raw device must hold
# it the moment umount returns),
# FIEMAP against debugfs, SEEK_DATA/SEEK_HOLE, the POSIX suite and the
# differential test against the guest kernel's ext4; a journal left by a
# crash of the kernel's ext4 replayed at an iomap mount; no FUSE
# READ/WRITE for file data (the server's request counts), e2fsck -fn clean;
# on fresh mounts of the ext4 runs, what the kernel's caches save (request
# counts again): backward O_DIRECT reads of one extent, the privilege checks
# of writes (setuid and capabilities still killed), the parent's attributes
# at creates;
# the server killed during a streaming write: the writer gets an error, umount
# works, e2fsck repairs; iomap-fsx, three seeds, and the iomap-race cases on
# 1 KiB blocks.
# Prints 'ok - iomap-server/NAME' or 'not ok - iomap-server/NAME' with '# '
# diagnostics. PART "fs" runs the 4 KiB, 1 KiB and ext3 runs and the server
# kill, "fsx" the rest (iomap-fsx, iomap-race and the journal replay, on the
# first DISK), "all" (the default) both; the suite runs the two
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

# mount DEV NAME [OPTIONS]: mounts DEV on $mnt through the helper, checks the mode
mount_ec() {
	if ! "$rel/mount.fuse.ext4" -v -o "iomap=on,kernel${3:+,$3}" "$1" "$mnt" >/tmp/helper.log 2>&1; then
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

run_fs() { # run_fs DEV BLOCKSIZE STREAM-SIZE [NAME TYPE]
	local dev=$1 bs=$2 n=${4:-fs$2} t=${5:-ext4}
	mkfs -t "$t" -q -F -b "$bs" "$dev" || { notok "$n/mkfs"; return; }
	mount_ec "$dev" "$n" || return
	head -c "$3" /dev/urandom >/tmp/big
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
	# not bigdir_10000: directories never take the iomap path, and 20 000
	# creates and unlinks under TCG take minutes (the host suites run it)
	check "$n/posix" "$build/tests/host/posix" "$mnt/posix" "iomap-$bs" -bigdir_10000
	differential "$n" "$bs" "$t"
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
	# FIEMAP (through the mount) against the extent tree or block map
	# (debugfs, unmounted), in filesystem blocks, as runs of blocks that are
	# contiguous both logically and physically
	debugfs -R "stat /sparse" "$dev" >/tmp/debugfs.stat 2>/dev/null
	check "$n/fiemap-matches-debugfs" python3 - /tmp/fiemap /tmp/debugfs.stat <<'PY'
import re, sys
def runs(pairs):
    out = []
    for l, p, n in sorted(pairs):
        if out and out[-1][0] + out[-1][2] == l and out[-1][1] + out[-1][2] == p:
            out[-1][2] += n
        else:
            out.append([l, p, n])
    return out
fm = [(int(a), int(c), int(b) - int(a) + 1) for a, b, c in
      re.findall(r"^ *\d+: *(\d+)\.\. *(\d+): *(\d+)\.\.", open(sys.argv[1]).read(), re.M)]
st = open(sys.argv[2]).read()
df = []
for a, b, c in re.findall(r"\((\d+)(?:-(\d+))?\):(\d+)", st):
    df.append((int(a), int(c), int(b or a) - int(a) + 1))
if not fm or runs(fm) != runs(df):
    sys.exit("fiemap %s\ndebugfs %s" % (runs(fm)[:8], runs(df)[:8]))
PY
	check "$n/no-file-data-through-fuse" bash -c "grep -Eq ' 0 READ, 0 WRITE' /tmp/counts ||
		{ cat /tmp/counts; exit 1; }"
	check "$n/e2fsck" e2fsck -fn "$dev"
	[ "$t" = ext4 ] && map_cache "$dev" "$n" && map_cache_writes "$dev" "$n" &&
		privileges "$dev" "$n" && creates "$dev" "$n"
}

# creates DEV NAME: 64 files created in one directory on a fresh mount ask
# the server for the directory's attributes a few times, not once per file
# (each create used to invalidate the parent's mode for the next
# permission check), and their closes send no FUSE_FLUSH (FOPEN_NOFLUSH)
creates() {
	mount_ec "$1" "$2/creates" || return
	check "$2/creates/files" bash -c "mkdir $mnt/c && cd $mnt/c && touch \$(seq -f f%g 64) &&
		[ \$(ls | wc -l) = 64 ]"
	umount_ec
	check "$2/creates/getattrs" bash -c "grep -Eq ' [0-9] GETATTR| 1[0-5] GETATTR' /tmp/counts ||
		{ cat /tmp/counts; exit 1; }"
	# each touch closes its file: FOPEN_NOFLUSH, and the kernel sends no FUSE_FLUSH
	check "$2/creates/no-flushes" bash -c "grep -Eq ' [0-7] FLUSH' /tmp/counts ||
		{ cat /tmp/counts; exit 1; }"
}

# privileges DEV NAME: on a fresh mount, a write by another user kills
# setuid and file capabilities (the kernel does it: the server never sees
# the writes of iomap files), and a file found to have neither is not asked
# about again: 32 writes cost one FUSE_GETXATTR of security.capability, not 32
privileges() {
	local nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	mount_ec "$1" "$2/privileges" allow_other || return
	printf x >"$mnt/suid" && chmod 04777 "$mnt/suid"
	printf x >"$mnt/cap" && chmod 0666 "$mnt/cap" && setcap cap_net_raw+ep "$mnt/cap"
	check "$2/privileges/setuid-killed" bash -c "echo y | $nobody dd of=$mnt/suid conv=notrunc \
		status=none && [ \$(stat -c %a $mnt/suid) = 777 ] || { stat $mnt/suid; exit 1; }"
	check "$2/privileges/caps-killed" bash -c "getcap $mnt/cap | grep -q cap_net_raw &&
		echo y | $nobody dd of=$mnt/cap conv=notrunc status=none && [ -z \"\$(getcap $mnt/cap)\" ]"
	python3 -c "import os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY)
for i in range(32):
    os.pwrite(fd, b'w' * 4096, 4096 * i)" "$mnt/w"
	umount_ec
	# setcap and getcap ask a few times; without S_NOSEC the 32 writes alone ask 32
	check "$2/privileges/one-check" bash -c "grep -Eq ' [0-9] GETXATTR| 1[0-5] GETXATTR' /tmp/counts ||
		{ cat /tmp/counts; exit 1; }"
}

# map_cache DEV NAME: O_DIRECT reads of /dio (16 MiB written in one run)
# from its end backwards, 1 MiB at a time, on a fresh mount: the server
# answers the first with the whole extent, the kernel serves the other 15
# from its mapping cache (an answer starting at the asked block: 16 asks)
map_cache() {
	mount_ec "$1" "$2/map-cache" || return
	check "$2/map-cache/reads" bash -c "for i in \$(seq 15 -1 0); do
		dd if=$mnt/dio of=/dev/null bs=1M skip=\$i count=1 iflag=direct status=none || exit 1; done"
	umount_ec
	check "$2/map-cache/begins" bash -c "grep -Eq ' [12] IOMAP_BEGIN' /tmp/counts ||
		{ cat /tmp/counts; exit 1; }"
}

# map_cache_writes DEV NAME: on a fresh mount, 16 rounds of an O_DIRECT
# read of /dio's first MiB and an O_DIRECT 4 KiB write appended past its
# end: an append changes only its own blocks, so the kernel keeps the read
# mapping: 16 asks for the writes and one or two for the reads (when any
# block change dropped every cached mapping of the file: 32)
map_cache_writes() {
	mount_ec "$1" "$2/map-cache-writes" || return
	check "$2/map-cache-writes/rounds" bash -c "for i in \$(seq 0 15); do
		dd if=$mnt/dio of=/dev/null bs=1M count=1 iflag=direct status=none &&
		dd if=/dev/zero of=$mnt/dio bs=4k count=1 seek=\$((4096 + i)) oflag=direct \
			conv=notrunc status=none || exit 1; done"
	umount_ec
	check "$2/map-cache-writes/begins" bash -c "grep -Eq ' 1[6-9] IOMAP_BEGIN| 2[0-3] IOMAP_BEGIN' /tmp/counts ||
		{ cat /tmp/counts; exit 1; }"
}

# differential NAME BLOCKSIZE TYPE: the seeded operations of difftest on the
# iomap mount and on the guest kernel's ext4 driver (a loop mount of a fresh
# image of the same type and block size); every result and the final trees must match.
# The image checked by e2fsck afterwards holds the iomap side.
differential() {
	local k=/tmp/kdiff
	mkdir -p "$k" "$mnt/diff"
	truncate -s 128M /tmp/kdiff.img
	if mkfs -t "$3" -q -F -b "$2" /tmp/kdiff.img && mount -o loop /tmp/kdiff.img "$k"; then
		mkdir -p "$k/diff"
		"$build/tests/host/difftest" "${EC_DIFF_SEED:-20261206}" "${EC_DIFF_OPS:-2000}" \
			"$mnt/diff" "$k/diff" "iomap-server/$1/diff" |
			sed 's/^\(.*ok - .*\/op-results\) (\(.*\))$/\1\n# \2/'
		umount "$k"
	else
		notok "$1/diff/op-results" "cannot loop-mount a kernel ext4 image"
	fi
	rm -f /tmp/kdiff.img
}

# journal DEV: a crash image made by the guest kernel's ext4 (1 s commits,
# copied onto DEV while still mounted: new files exist only in its journal,
# and a directory created and removed in the crash window left revoke
# records) is replayed by the server at an iomap mount: the files and their
# data read back through iomap (the replay's own writes and the kernel's
# bios must agree), a file written after it survives umount, e2fsck -fn clean.
journal() {
	local dev=$1 k=/tmp/kj i
	mkdir -p "$k"
	truncate -s 64M /tmp/live.img
	mkfs.ext4 -q -F /tmp/live.img && mount -o loop,commit=1 /tmp/live.img "$k" ||
		{ notok journal/crash-image "cannot loop-mount a kernel ext4 image"; return; }
	sync
	mkdir "$k/gone"
	for i in $(seq 100); do echo "gone $i" >"$k/gone/g$i"; done
	sleep 2
	rm -r "$k/gone"
	mkdir "$k/dir"
	for i in $(seq 50); do echo "file $i" >"$k/dir/f$i"; done
	ln -s f1 "$k/dir/link"
	# delayed allocation: without a writeback the committed files could
	# still be empty; sync commits the data and the metadata (to the
	# journal only: the home blocks wait for a checkpoint)
	sync
	dd if=/tmp/live.img of="$dev" bs=1M status=none conv=fsync
	umount "$k"
	rm -f /tmp/live.img
	if ! dumpe2fs -h "$dev" 2>/dev/null | grep -q needs_recovery; then
		notok journal/crash-image "the copy does not need recovery"
		return
	fi
	ok journal/crash-image
	mount_ec "$dev" journal || return
	check journal/replayed bash -c "[ \$(ls $mnt/dir | wc -l) = 51 ] && [ ! -e $mnt/gone ] &&
		[ \$(readlink $mnt/dir/link) = f1 ] && grep -q replayed $log ||
		{ ls -la $mnt $mnt/dir | head; exit 1; }"
	check journal/data bash -c "for i in \$(seq 50); do [ \"\$(cat $mnt/dir/f\$i)\" = \"file \$i\" ] ||
		{ echo f\$i:; cat $mnt/dir/f\$i; exit 1; }; done"
	head -c 4M /dev/urandom >/tmp/after.want
	cp /tmp/after.want "$mnt/dir/after"
	if umount_ec; then ok journal/umount; else notok journal/umount "$log"; return; fi
	check journal/written-after same "$dev" /dir/after /tmp/after.want
	check journal/e2fsck e2fsck -fn "$dev"
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
			check "fsx/seed-$seed" "$build/tests/iomap-fsx" "$mnt" "$d4" $seed "${EC_FSX_OPS:-4000}" \
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
	run_fs "$d4" 4096 256M
	run_fs "$d1" 1024 64M
	# block-mapped files (ext3: no extents), 2 KiB blocks
	run_fs "$d1" 2048 32M ext3 ext3
	kill_server
fi
if [ "$part" != fs ]; then
	fsx
	journal "$d4"
fi
