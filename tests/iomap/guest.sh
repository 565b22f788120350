#!/bin/bash
# tests/iomap/guest.sh: runs inside the QEMU guest (tests/qemu/iomap.suite) with
# /dev/vda for the iomap test server and /dev/vdb for the fuse2fs check. Prints
# one line per case: 'case NAME ok[: detail]' or 'case NAME FAIL: why'.
# PART "exercise" runs only the random-operation exerciser (FSX_OPS operations
# for each seed of FSX_SEEDS, cases fsx-SEED) and the concurrency cases
# (race-*) and the fuzzed hostile server for FUZZ_SEEDS (cases fuzz-SEED),
# "fuzz" only the fuzzed server, for the seeds SEEDS (default FUZZ_SEEDS),
# "main" everything else, "all" (the default) all; the suite runs "main" and
# "exercise" in two guests at once. /dev/vdb, when the guest has it and the
# part is not "main", is a bystander disk the fuzzed server must not change.
# Usage: guest.sh BINDIR [PART [SEEDS]] (BINDIR: the tests/iomap programs)
set -u
bin=$1 part=${2:-all} dev=/dev/vda mnt=/tmp/iomap.mnt
export ASAN_OPTIONS=detect_leaks=0
srv=$bin/iomap-test-server chk=$bin/iomap-check
FSX_SEEDS="1 2 3" FSX_OPS=${EC_FSX_OPS:-8000}
FUZZ_SEEDS=${3:-"1 2 3 4"} FUZZ_SECONDS=15
mkdir -p $mnt
mount -t fusectl none /sys/fs/fuse/connections 2>/dev/null
$chk fill $dev || { echo "case setup FAIL: cannot fill $dev"; exit 1; }

seen=$(dmesg | wc -l)
# new kernel log lines since the last call, into /tmp/klog
newlog() {
	dmesg | tail -n +$((seen + 1)) >/tmp/klog
	seen=$((seen + $(wc -l </tmp/klog)))
}
# kernel log problems (tests/qemu/scan-log) since the last newlog, or nothing
badlog() {
	tests/qemu/scan-log /tmp/klog 2>&1 | head -5 | tr '\n' ' '
	grep -a 'beyond end of device' /tmp/klog | head -2 | tr '\n' ' '
}
unmount() {
	umount $mnt 2>/dev/null || umount -l $mnt 2>/dev/null
	for i in $(seq 50); do pgrep -f "iomap-test-server.*$mnt" >/dev/null || break; sleep 0.1; done
	pkill -KILL -f "iomap-test-server.*$mnt" 2>/dev/null
}
abort_all() {
	for a in /sys/fs/fuse/connections/*/abort; do [ -e "$a" ] && echo 1 >"$a"; done
}

# The exerciser for each seed, then the concurrency cases (iomap-race), each
# on a fresh server, the kernel log clean.
exercise() { # CASE-NAME COMMAND...
	local n=$1 st res rc b line
	shift
	st=$($srv $dev $mnt 2>&1)
	res=$(timeout 900 "$@" 2>&1)
	rc=$?
	unmount
	newlog
	b=$(badlog)
	line=$(echo "$res" | grep -a -m1 "^case $n ok")
	if [ "$st" != "iomap=1 dev=1" ]; then
		echo "case $n FAIL: server said '$st'"
	elif [ $rc != 0 ] || [ -z "$line" ]; then
		echo "case $n FAIL: status $rc: $(echo "$res" | tr '\n' ';' | cut -c1-2000)"
	elif [ -n "$b" ]; then
		echo "case $n FAIL: kernel log: $b"
	else
		echo "$line"
	fi
}

# A hostile server that mutates its replies at random (iomap-test-server
# --fuzz, wfuzz.h) under iomap-chaos, 2 processes for FUZZ_SECONDS; every
# fourth seed in classic mode (--no-iomap). The workers must finish (no
# operation over 20 s), umount must return, the kernel log stay clean
# (tests/qemu/scan-log, no I/O beyond the end of a device) and the
# bystander disk /dev/vdb keep its checksum.
fuzz() { # SEED
	local seed=$1 want="iomap=1 dev=1" opt=() st res rc b sum
	if [ $((seed % 4)) = 0 ]; then want="iomap=0 dev=0" opt=(--no-iomap); fi
	sum=$( [ -b /dev/vdb ] && md5sum </dev/vdb)
	st=$($srv --fuzz "$seed" --fuzz-log /tmp/fuzz.log "${opt[@]}" $dev $mnt 2>&1)
	if [ "$st" != "$want" ]; then
		echo "case fuzz-$seed FAIL: server said '$st'"
		unmount
		return
	fi
	res=$(timeout -k 5 $((FUZZ_SECONDS + 60)) $bin/iomap-chaos $mnt "$seed" $FUZZ_SECONDS 2 2>&1)
	rc=$?
	timeout 30 umount $mnt 2>/dev/null || timeout 30 umount -l $mnt
	local urc=$?
	unmount
	newlog
	b=$(badlog)
	res="${opt[*]:-iomap} $(tr '\n' ' ' </tmp/fuzz.log)$(echo "$res" | tr '\n' ' ')"
	if [ $rc != 0 ]; then
		echo "case fuzz-$seed FAIL: iomap-chaos status $rc: $res"
	elif [ $urc != 0 ]; then
		echo "case fuzz-$seed FAIL: umount did not return within 30 s: $res"
	elif [ -n "$b" ]; then
		echo "case fuzz-$seed FAIL: kernel log: $b"
	elif [ "$sum" != "$( [ -b /dev/vdb ] && md5sum </dev/vdb)" ]; then
		echo "case fuzz-$seed FAIL: the bystander disk /dev/vdb changed"
	else
		echo "case fuzz-$seed ok: $res"
	fi
}
if [ "$part" = fuzz ]; then
	for seed in $FUZZ_SEEDS; do fuzz "$seed"; done
	exit 0
fi
if [ "$part" != main ]; then
	for seed in $FSX_SEEDS; do
		exercise fsx-$seed $bin/iomap-fsx $mnt $dev $seed $FSX_OPS
	done
	exercise race-direct-buffered $bin/iomap-race $mnt $dev direct-buffered 600
	exercise race-truncate-writeback $bin/iomap-race $mnt $dev truncate-writeback 2000
	exercise race-readers $bin/iomap-race $mnt $dev readers 600
	exercise race-punch-writeback $bin/iomap-race $mnt $dev punch-writeback 3
	# last: the fuzzed server may write anywhere on $dev
	for seed in $FUZZ_SEEDS; do fuzz "$seed"; done
	[ "$part" = exercise ] && exit 0
	$chk fill $dev || { echo "case setup FAIL: cannot fill $dev again"; exit 1; }
fi

# The good server: every check of iomap-check verify is a case.
newlog
st=$($srv $dev $mnt 2>&1)
if [ "$st" != "iomap=1 dev=1" ]; then
	echo "case mount FAIL: server said '$st'"
else
	echo "case mount ok: $st"
	echo 3 >/proc/sys/vm/drop_caches
	$chk verify $mnt
	$chk write $mnt $dev
fi
unmount
newlog
b=$(badlog)
grep -aq 'fuse: iomap' /tmp/klog && b+=" unexpected: $(grep -a 'fuse: iomap' /tmp/klog | head -2)"
[ -z "$b" ] && echo "case good-log ok" || echo "case good-log FAIL: $b"

# Durability (iomap-check umount-mmap and syncfs, each on a fresh server):
# stores through a shared mapping, left dirty after close and munmap, are on
# the device as soon as umount returns, and the server has answered
# FUSE_DESTROY by then; after syncfs and sync the data is on the device, the
# server saw FUSE_SYNCFS and the device a cache flush.
durable() { # CHECK CASE...
	local c=$1 st res b n line
	shift
	st=$($srv $dev $mnt 2>&1)
	res=$(timeout 120 $chk $c $mnt $dev 2>&1)
	unmount
	newlog
	b=$(badlog)
	for n in "$@"; do
		line=$(echo "$res" | grep -a -m1 "^case $n \(ok\|FAIL\)")
		if [ "$st" != "iomap=1 dev=1" ]; then
			echo "case $n FAIL: server said '$st'"
		elif [ -z "$line" ]; then
			echo "case $n FAIL: no result: $(echo "$res" | tr '\n' ';' | cut -c1-1000)"
		elif [ -n "$b" ]; then
			echo "case $n FAIL: kernel log: $b"
		else
			echo "$line"
		fi
	done
}
durable umount-mmap umount-mmap umount-destroy
durable syncfs syncfs sync

# Block counts (iomap-check blocks, wblocks.c; durable() runs it on a fresh
# server like the checks above): the server allocates when it answers a
# write mapping, so fstat right after a buffered write to the empty w, and
# after an O_DIRECT write into a hole of w that leaves its size alone, must
# show the blocks the server allocated, not the count cached before.
durable blocks blocks-after-write blocks-after-direct

# FUSE_NOTIFY_STORE into the page cache of an iomap file is refused: the
# server pushes 8 KiB of 0xa5 across the EOF of f while f's pages are
# cached (iomap-test-server, attribute user.iomap.store); the store must
# fail with EINVAL, and f must read as before, its size too.
notify_store() {
	local st r1 v r2 b ok="case read-buffered ok;case read-mmap ok;"
	st=$($srv $dev $mnt 2>&1)
	r1=$($chk read $mnt 2>&1 | tr '\n' ';')
	v=$($chk xattr $mnt/f user.iomap.store 2>&1)
	r2=$($chk read $mnt 2>&1 | tr '\n' ';')
	unmount
	newlog
	b=$(badlog)
	if [ "$st" != "iomap=1 dev=1" ]; then
		echo "case notify-store FAIL: server said '$st'"
	elif [ "$r1" != "$ok" ]; then
		echo "case notify-store FAIL: before the store: $r1"
	elif [ "$v" != "store=EINVAL" ]; then
		echo "case notify-store FAIL: the server's FUSE_NOTIFY_STORE: '$v', want EINVAL (then: $r2)"
	elif [ "$r2" != "$ok" ]; then
		echo "case notify-store FAIL: after the store: $r2"
	elif [ -n "$b" ]; then
		echo "case notify-store FAIL: kernel log: $b"
	else
		echo "case notify-store ok: $v"
	fi
}
notify_store

# Block sizes and the devices' logical block sizes (a loop device with
# 4 KiB logical blocks over $dev, the same data): files the server reports
# with 1 KiB blocks (--blksize) on it must not use iomap (FIEMAP says
# EOPNOTSUPP, FUSE_READ serves them, the kernel says why), 4 KiB blocks
# do. On $dev (512-byte sectors) 1 KiB files use iomap, and registering
# the 4 KiB device once such a file exists fails with EINVAL.
lbs_cases() {
	local loop st st4 st1 r4 r1 fm4 fm1 w1 v r2 fm b ok="case read-buffered ok;case read-mmap ok;"
	loop=$(losetup -b 4096 -f --show $dev 2>&1)
	if [ ! -b "$loop" ]; then
		echo "case blksize-below-lbs FAIL: losetup -b 4096: $loop"
		echo "case backing-open-lbs FAIL: losetup -b 4096: $loop"
		return
	fi
	st4=$($srv $loop $mnt 2>&1)
	r4=$($chk read $mnt 2>&1 | tr '\n' ';')
	fm4=$($chk fiemap $mnt 2>&1)
	unmount
	newlog
	st1=$($srv --blksize 1024 $loop $mnt 2>&1)
	r1=$($chk read $mnt 2>&1 | tr '\n' ';')
	fm1=$($chk fiemap $mnt 2>&1)
	unmount
	newlog
	w1=$(grep -a -m1 'block size 1024 below the logical block size 4096' /tmp/klog)
	b=$(badlog)
	if [ "$st4" != "iomap=1 dev=1" ] || [ "$st1" != "iomap=1 dev=1" ]; then
		echo "case blksize-below-lbs FAIL: server said '$st4', then '$st1'"
	elif [ "$r4" != "$ok" ] || [[ "$fm4" != "fiemap ok"* ]]; then
		echo "case blksize-below-lbs FAIL: 4 KiB blocks on the 4 KiB device: $r4 $fm4"
	elif [ "$r1" != "$ok" ]; then
		echo "case blksize-below-lbs FAIL: 1 KiB blocks on the 4 KiB device: $r1"
	elif [[ "$fm1" != "fiemap error EOPNOTSUPP"* ]]; then
		echo "case blksize-below-lbs FAIL: 1 KiB blocks on the 4 KiB device use iomap: $fm1"
	elif [ -z "$w1" ]; then
		echo "case blksize-below-lbs FAIL: no kernel message about the block size"
	elif [ -n "$b" ]; then
		echo "case blksize-below-lbs FAIL: kernel log: $b"
	else
		echo "case blksize-below-lbs ok: 4 KiB: $fm4; 1 KiB: $fm1"
	fi

	st=$($srv --blksize 1024 --late-dev $loop $dev $mnt 2>&1)
	r1=$($chk read $mnt 2>&1 | tr '\n' ';')
	v=$($chk xattr $mnt/f user.iomap.adddev 2>&1)
	r2=$($chk read $mnt 2>&1 | tr '\n' ';')
	fm=$($chk fiemap $mnt 2>&1)
	unmount
	newlog
	w1=$(grep -a -m1 'logical block size 4096 above the block size of a file' /tmp/klog)
	b=$(badlog)
	losetup -d $loop
	if [ "$st" != "iomap=1 dev=1" ]; then
		echo "case backing-open-lbs FAIL: server said '$st'"
	elif [ "$r1" != "$ok" ] || [[ "$fm" != "fiemap ok"* ]]; then
		echo "case backing-open-lbs FAIL: 1 KiB blocks on $dev: $r1 $fm"
	elif [ "$v" != "adddev=EINVAL" ]; then
		echo "case backing-open-lbs FAIL: registering the 4 KiB device: '$v', want EINVAL"
	elif [ "$r2" != "$ok" ]; then
		echo "case backing-open-lbs FAIL: after the registration: $r2"
	elif [ -z "$w1" ]; then
		echo "case backing-open-lbs FAIL: no kernel message about the device"
	elif [ -n "$b" ]; then
		echo "case backing-open-lbs FAIL: kernel log: $b"
	else
		echo "case backing-open-lbs ok: $v, 1 KiB files: $fm"
	fi
}
lbs_cases

# Device registrations: at most 1024 a connection, only fds open for
# reading, never closed while the connection lives; reads still work.
st=$($srv $dev $mnt 2>&1)
v=$($chk xattr $mnt/f user.iomap.limits 2>&1)
r=$($chk read $mnt 2>&1 | tr '\n' ';')
unmount
newlog
b=$(badlog)
want="registered=1024 then=ENOSPC wronly=EBADF close=EBUSY"
if [ "$st" != "iomap=1 dev=1" ]; then
	echo "case backing-limits FAIL: server said '$st'"
elif [ "$v" != "$want" ]; then
	echo "case backing-limits FAIL: '$v', want '$want'"
elif [ "$r" != "case read-buffered ok;case read-mmap ok;" ]; then
	echo "case backing-limits FAIL: reads after the probe: $r"
elif [ -n "$b" ]; then
	echo "case backing-limits FAIL: kernel log: $b"
else
	echo "case backing-limits ok: $v"
fi

# Growing fallocate zeroes what lies past the old EOF also where written
# blocks past EOF hold old data (--stale-tail: w is 10000 bytes over four
# blocks of 'Z'): bytes 10000-29999 read zero at once and after sync and
# drop_caches, the first 10000 stay 'Z'.
st=$($srv --stale-tail $dev $mnt 2>&1)
v=$(fallocate -o 10000 -l 20000 $mnt/w 2>&1)
z1=$(tail -c +10001 $mnt/w | tr -d '\0' | wc -c)
sync
echo 3 >/proc/sys/vm/drop_caches
z2=$(tail -c +10001 $mnt/w | tr -d '\0' | wc -c)
d=$(head -c 10000 $mnt/w | tr -d Z | wc -c)
sz=$(stat -c %s $mnt/w)
unmount
newlog
b=$(badlog)
if [ "$st" != "iomap=1 dev=1" ]; then
	echo "case fallocate-stale FAIL: server said '$st'"
elif [ -n "$v" ] || [ "$sz" != 30000 ]; then
	echo "case fallocate-stale FAIL: fallocate: '$v', size $sz, want 30000"
elif [ "$z1" != 0 ] || [ "$z2" != 0 ]; then
	echo "case fallocate-stale FAIL: $z1 non-zero bytes past the old EOF, $z2 after sync and drop_caches"
elif [ "$d" != 0 ]; then
	echo "case fallocate-stale FAIL: $d bytes of the old data changed"
elif [ -n "$b" ]; then
	echo "case fallocate-stale FAIL: kernel log: $b"
else
	echo "case fallocate-stale ok"
fi

# The kernel reuses the last read mapping while the file's blocks stay put:
# w holds 512 KiB of written blocks in one run, then a hole to 1 MiB; cold
# reads of all of it ask the server (-v logs every FUSE_IOMAP_BEGIN) once
# per run, not once per readahead window. A write into the hole changes the
# blocks: the cached hole must not hide the data after drop_caches (with w
# held open, so that its inode and cached mapping survive).
st=$($srv -v $dev $mnt 2>/tmp/begins)
v=$(head -c 524288 /dev/urandom >/tmp/w512 &&
	dd if=/tmp/w512 of=$mnt/w bs=512k conv=fsync status=none 2>&1 && truncate -s 1M $mnt/w 2>&1)
echo 3 >/proc/sys/vm/drop_caches
n0=$(grep -c "begin ino 4 .* op 0x0$" /tmp/begins)
head -c 524288 $mnt/w >/tmp/r512
same=$(cmp /tmp/r512 /tmp/w512 2>&1; tail -c 524288 $mnt/w | tr -d '\0' | wc -c)
reads=$(($(grep -c "begin ino 4 .* op 0x0$" /tmp/begins) - n0))
exec 3<$mnt/w	# the inode, and with it its cached mapping, stays in memory
printf A%.0s $(seq 4096) | dd of=$mnt/w bs=4k seek=192 conv=notrunc,fsync 2>/dev/null
echo 3 >/proc/sys/vm/drop_caches
a=$(dd if=$mnt/w bs=4k skip=192 count=1 2>/dev/null | tr -d A | wc -c)
exec 3<&-
unmount
newlog
b=$(badlog)
if [ "$st" != "iomap=1 dev=1" ]; then
	echo "case map-cache FAIL: server said '$st'"
elif [ -n "$v" ] || [ "$same" != 0 ]; then
	echo "case map-cache FAIL: writing or reading back w: '$v' '$same'"
elif [ "$reads" -gt 2 ] || [ "$reads" -lt 1 ]; then
	echo "case map-cache FAIL: $reads FUSE_IOMAP_BEGIN for cold reads of one run and one hole, want 1-2"
elif [ "$a" != 0 ]; then
	echo "case map-cache FAIL: $a bytes of the write into the hole read back wrong after drop_caches (a stale cached hole)"
elif [ -n "$b" ]; then
	echo "case map-cache FAIL: kernel log: $b"
else
	echo "case map-cache ok: $reads FUSE_IOMAP_BEGIN for 1 MiB of cold reads"
fi

# Overwrites of written blocks go through the cached mappings: w holds
# 512 KiB written in one run; one read caches its mapping; then 32 O_DIRECT
# and 32 buffered 4 KiB overwrites at scattered blocks, and their writeback,
# ask the server for no write mapping. The data reads back after
# drop_caches (w held open: its inode and cached mapping stay) as a model
# copy on /tmp says.
printf D%.0s $(seq 4096) >/tmp/d4k
printf B%.0s $(seq 4096) >/tmp/b4k
st=$($srv -v $dev $mnt 2>/tmp/begins)
v=$(head -c 524288 /dev/urandom >/tmp/w512 &&
	dd if=/tmp/w512 of=$mnt/w bs=512k conv=fsync status=none 2>&1)
exec 3<$mnt/w
cat $mnt/w >/dev/null
n0=$(grep -c "begin ino 4 .* op 0x[0-9a-f]*[13579bdf]$" /tmp/begins)
for i in $(seq 0 31); do
	for w in "d4k $(((i * 37) % 128)) oflag=direct" "b4k $(((i * 53 + 7) % 128))"; do
		set -- $w
		v=$v$(dd if=/tmp/$1 of=$mnt/w bs=4k seek=$2 conv=notrunc ${3:-} status=none 2>&1)
		dd if=/tmp/$1 of=/tmp/w512 bs=4k seek=$2 conv=notrunc status=none
	done
done
sync
writes=$(($(grep -c "begin ino 4 .* op 0x[0-9a-f]*[13579bdf]$" /tmp/begins) - n0))
echo 3 >/proc/sys/vm/drop_caches
same=$(cmp $mnt/w /tmp/w512 2>&1)
exec 3<&-
unmount
newlog
b=$(badlog)
if [ "$st" != "iomap=1 dev=1" ]; then
	echo "case overwrite-cache FAIL: server said '$st'"
elif [ -n "$v" ] || [ -n "$same" ]; then
	echo "case overwrite-cache FAIL: writing or reading back w: '$v' '$same'"
elif [ "$writes" -gt 1 ]; then
	echo "case overwrite-cache FAIL: $writes write FUSE_IOMAP_BEGIN for 64 overwrites of cached written blocks, want at most 1"
elif [ -n "$b" ]; then
	echo "case overwrite-cache FAIL: kernel log: $b"
else
	echo "case overwrite-cache ok: $writes write FUSE_IOMAP_BEGIN for 64 overwrites"
fi

# Timestamps (iomap-check times, wtimes.c): a buffered write, an O_DIRECT
# write, ftruncate and a store through a shared mapping after close each
# move mtime and ctime of w; after fsync the server has the times stat
# shows; the store's times survive munmap and drop_caches although the
# server lets the kernel forget w at once (--forget-w: a new inode takes
# the server's times); after umount and a mount by the next server (which
# starts from the times the last one stored) stat and the server show the
# times stat showed last.
times_case() {
	local st st2 res res2 t b n line
	st=$($srv --forget-w $dev $mnt 2>&1)
	res=$(timeout 120 $chk times $mnt 2>&1)
	unmount
	t=$(echo "$res" | grep -a -m1 '^times [0-9]' | cut -d' ' -f2-)
	st2=$($srv $dev $mnt 2>&1)
	res2=$(timeout 60 $chk times-remount $mnt ${t:-none none} 2>&1)
	unmount
	newlog
	b=$(badlog)
	for n in times-buffered times-direct times-truncate times-fsync times-mmap times-remount; do
		line=$(printf '%s\n%s\n' "$res" "$res2" | grep -a -m1 "^case $n \(ok\|FAIL\)")
		if [ "$st" != "iomap=1 dev=1" ] || [ "$st2" != "iomap=1 dev=1" ]; then
			echo "case $n FAIL: server said '$st', then '$st2'"
		elif [ -z "$line" ]; then
			echo "case $n FAIL: no result: $(printf '%s;%s' "$res" "$res2" | tr '\n' ';' | cut -c1-1000)"
		elif [ -n "$b" ]; then
			echo "case $n FAIL: kernel log: $b"
		elif [ "$n" = times-remount ] && [ "$line" = "case $n ok" ]; then
			echo "$line: $t"
		else
			echo "$line"
		fi
	done
}
times_case

# Hostile servers: the read (or the write of CHECK, see iomap-check) must
# fail, the kernel must say why, log clean.
hostile() { # MODE EXPECTED-KERNEL-MESSAGE [CHECK [CHECK-ARG]]
	local m=$1 want=$2 check=${3:-expect-error} arg=${4:-} st res rc b
	st=$($srv --mode "$m" $dev $mnt 2>&1)
	if [ "$st" != "iomap=1 dev=1" ]; then
		echo "case hostile-$m FAIL: server said '$st'"
		unmount
		return
	fi
	case "$m" in
	hang)
		$chk expect-error $mnt >/tmp/res 2>&1 &
		local pid=$!
		sleep 3
		if ! kill -0 $pid 2>/dev/null; then
			echo "case hostile-$m FAIL: reader did not wait for the server: $(cat /tmp/res)"
			unmount
			return
		fi
		abort_all
		wait $pid
		rc=$?
		res=$(cat /tmp/res)
		;;
	wb-hang)
		# the kernel must give up on the server by itself (iomap_timeout)
		local old
		old=$(cat /sys/module/fuse/parameters/iomap_timeout 2>/dev/null)
		echo 3 >/sys/module/fuse/parameters/iomap_timeout
		$chk expect-wb-error $mnt >/tmp/res 2>&1 &
		local pid=$! i
		for i in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		if kill -0 $pid 2>/dev/null; then
			abort_all
			wait $pid
			echo "case hostile-$m FAIL: fsync still waited for the server after 30 s"
			[ -n "$old" ] && echo "$old" >/sys/module/fuse/parameters/iomap_timeout
			unmount
			newlog
			return
		fi
		wait $pid
		rc=$?
		res=$(cat /tmp/res)
		echo "$old" >/sys/module/fuse/parameters/iomap_timeout
		;;
	*)
		res=$(timeout 60 $chk $check $mnt $arg 2>&1)
		rc=$?
		;;
	esac
	unmount
	newlog
	res=$(echo "$res" | tr '\n' ';')
	b=$(badlog)
	if [ $rc != 0 ]; then
		echo "case hostile-$m FAIL: $res"
	elif [ -n "$b" ]; then
		echo "case hostile-$m FAIL: kernel log: $b"
	elif [ -n "$want" ] && ! grep -aq -- "$want" /tmp/klog; then
		echo "case hostile-$m FAIL: no kernel message '$want' ($res)"
	else
		echo "case hostile-$m ok: $res kernel: ${want:-none}"
	fi
}
hostile beyond-end "beyond the end of the device"
hostile addr-overflow "addr + length overflows"
hostile misaligned-offset "not aligned to the block size"
hostile misaligned-length "not aligned to the block size"
hostile zero-length "zero length"
hostile bad-type "unknown type"
hostile bad-flags "unknown flags"
hostile not-covering "does not cover the file position"
hostile unregistered-dev "unknown device"
hostile closed-dev "unknown device"
hostile dev-on-hole "address on a mapping without blocks"
hostile write-ro "write mapping on a read-only device"
hostile inline "inline mappings are not supported"
hostile delalloc "delalloc mapping"
hostile hang ""
hostile die ""
hostile w-beyond-end "beyond the end of the device" expect-write-error
hostile w-hole "direct write mapping without blocks" expect-write-error
hostile ioend-absurd "bad size" expect-write-error
hostile ioend-die "" expect-write-error
hostile wb-hole "writeback mapping without blocks" expect-wb-error
hostile wb-absurd "bad size" expect-wb-error
hostile wb-die "" expect-wb-error
hostile ioend-error "" expect-write-error
hostile wb-error "" expect-wb-error
hostile wb-shrunk "bad size" expect-wb-error
hostile wb-beyond-end "beyond the end of the device" expect-wb-error
hostile bw-ro "write mapping on a read-only device" expect-write-error buffered
hostile mkwrite-die "" expect-mkwrite-error
hostile mkwrite-bad "does not cover the file position" expect-mkwrite-error
hostile w-cow "copy-on-write mapping over data" expect-cow-refused
hostile wb-hang "did not answer within 3 s"

# The server dies with dirty pages outstanding: fsync fails, nothing hangs
# (no folio stays locked or under writeback), a plain umount works.
dirty_die() {
	local st res rc urc b
	st=$($srv $dev $mnt 2>&1)
	res=$(timeout 60 $chk expect-dirty-die $mnt "$(pgrep -f "iomap-test-server.*$mnt")" 2>&1)
	rc=$?
	timeout 60 umount $mnt
	urc=$?
	[ $urc = 0 ] || unmount
	newlog
	res=$(echo "$res" | tr '\n' ';')
	b=$(badlog)
	if [ "$st" != "iomap=1 dev=1" ]; then
		echo "case hostile-dirty-die FAIL: server said '$st'"
	elif [ $rc != 0 ]; then
		echo "case hostile-dirty-die FAIL: $res"
	elif [ $urc != 0 ]; then
		echo "case hostile-dirty-die FAIL: umount status $urc ($res)"
	elif [ -n "$b" ]; then
		echo "case hostile-dirty-die FAIL: kernel log: $b"
	else
		echo "case hostile-dirty-die ok: $res umount ok"
	fi
}
dirty_die

# Privilege: a server gets iomap only through the mark (FUSE_DEV_IOC_ADD_IOMAP,
# the helper's ioctl; iomap-test-server marks unless --no-mark), never through
# the capabilities of the task that mounts or of the server itself, and only
# while fuse.enable_iomap (set on the kernel command line by tests/qemu/vm) is on.
param=/sys/module/fuse/parameters/enable_iomap
v=$(cat $param 2>&1)
[ "$v" = Y ] && grep -qw fuse.enable_iomap=1 /proc/cmdline &&
	echo "case switch-cmdline ok: enable_iomap=$v" ||
	echo "case switch-cmdline FAIL: $param: '$v', cmdline: $(cat /proc/cmdline)"
priv() { # NAME WANT-STATUS WANT-FIEMAP SERVER-OPTIONS...
	local n=$1 want=$2 wantfm=$3 st r fm
	shift 3
	st=$($srv "$@" $dev $mnt 2>&1)
	r=$($chk read $mnt 2>&1 | tr '\n' ';')
	fm=$($chk fiemap $mnt 2>&1)
	unmount
	newlog
	if [ "$st" != "$want" ]; then
		echo "case $n FAIL: server said '$st', want '$want'"
	elif [ "$r" != "case read-buffered ok;case read-mmap ok;" ]; then
		echo "case $n FAIL: $r"
	elif [[ "$fm" != "$wantfm"* ]]; then
		echo "case $n FAIL: $fm, want $wantfm"
	elif [ -n "$(badlog)" ]; then
		echo "case $n FAIL: kernel log: $(badlog)"
	else
		echo "case $n ok: $st, $fm"
	fi
}
priv priv-marked "iomap=1 dev=1" "fiemap ok" --drop-rawio --user
priv priv-unmarked "iomap=0 dev=0" "fiemap error EOPNOTSUPP" --no-mark --drop-rawio --user
# root mounts (CAP_SYS_RAWIO), the unmarked server runs as nobody
priv priv-rawio-mount "iomap=0 dev=0" "fiemap error EOPNOTSUPP" --no-mark --user
# the unmarked server keeps CAP_SYS_RAWIO and reads and answers FUSE_INIT
priv priv-rawio-unmarked "iomap=0 dev=0" "fiemap error EOPNOTSUPP" --no-mark
priv priv-declined "iomap=0 dev=0" "fiemap error EOPNOTSUPP" --no-iomap

# A user's server mounted through the setuid fusermount3 (as libfuse does):
# FUSE_INIT does not offer FUSE_IOMAP, and a server that claims it anyway
# cannot register a device; the user reads the file through classic FUSE.
fusermount_case() {
	local st r fm nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chown 65534:65534 $mnt
	chmod 0666 /dev/fuse	# as udev makes it; fusermount3 opens it as the user
	st=$(timeout 60 $srv --fusermount --claim-iomap --status-all $dev $mnt 2>&1)
	r=$(timeout 60 $nobody $chk read $mnt 2>&1 | tr '\n' ';')
	fm=$(timeout 60 $nobody $chk fiemap $mnt 2>&1)
	unmount
	chown 0:0 $mnt
	newlog
	if [ "$st" != "offered=0 iomap=1 dev=0 mark=none" ]; then
		echo "case priv-fusermount FAIL: server said '$st', want 'offered=0 iomap=1 dev=0 mark=none'"
	elif [ "$r" != "case read-buffered ok;case read-mmap ok;" ]; then
		echo "case priv-fusermount FAIL: $r"
	elif [[ "$fm" != "fiemap error EOPNOTSUPP"* ]]; then
		echo "case priv-fusermount FAIL: $fm, want fiemap error EOPNOTSUPP"
	elif [ -n "$(badlog)" ]; then
		echo "case priv-fusermount FAIL: kernel log: $(badlog)"
	else
		echo "case priv-fusermount ok: $st, $fm"
	fi
}
fusermount_case

# With fuse.enable_iomap off nobody gets iomap: the mark is refused and no
# INIT offers it, whoever mounts; turned on again, the mark works again.
switch_off() {
	local off rawio on
	if ! echo 0 >$param; then
		echo "case switch-off FAIL: cannot write $param"
		return
	fi
	off=$($srv --status-all $dev $mnt 2>&1)
	unmount
	rawio=$($srv --status-all --no-mark $dev $mnt 2>&1)
	unmount
	echo 1 >$param
	on=$($srv --status-all $dev $mnt 2>&1)
	unmount
	newlog
	if [ "$off" != "offered=0 iomap=0 dev=0 mark=EOPNOTSUPP" ]; then
		echo "case switch-off FAIL: marked server with the switch off said '$off'"
	elif [ "$rawio" != "offered=0 iomap=0 dev=0 mark=none" ]; then
		echo "case switch-off FAIL: unmarked root server with the switch off said '$rawio'"
	elif [ "$on" != "offered=1 iomap=1 dev=1 mark=ok" ]; then
		echo "case switch-off FAIL: marked server with the switch on again said '$on'"
	elif [ -n "$(badlog)" ]; then
		echo "case switch-off FAIL: kernel log: $(badlog)"
	else
		echo "case switch-off ok: off: $off; on: $on"
	fi
}
switch_off
r=$($chk eperm 2>&1)
[ $? = 0 ] && echo "case ioctl-eperm ok: $r" || echo "case ioctl-eperm FAIL: $r"

# A stock FUSE server still works on the patched kernel.
r=$(tests/qemu/guest/fs-roundtrip.sh fuse2fs /dev/vdb 2>&1)
newlog
[ "$(echo "$r" | tail -1)" = "roundtrip fuse2fs ok" ] && [ -z "$(badlog)" ] &&
	echo "case stock-fuse2fs ok" || echo "case stock-fuse2fs FAIL: $(echo "$r" | tr '\n' ';') $(badlog)"
exit 0
