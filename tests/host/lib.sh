# tests/host/lib.sh: shell glue shared by the host suites: TAP-style output,
# skip checks, mounting an image with ext4cell-server and checking it after.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$repo/${BUILD:-build/test}
server=$build/ext4cell-server
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

ok() { echo "ok - $1"; }
notok() { # notok NAME [diagnostic file or text...]
	echo "not ok - $1"
	shift
	for d in "$@"; do
		if [ -f "$d" ]; then tail -n 30 "$d" | sed 's/^/# /'; else echo "# $d"; fi
	done
}
skip() { echo "ok - $1 # SKIP $2"; }

# need_host NAME...: prints SKIP lines for every NAME and exits when the host
# lacks what the suites need (root, /dev/fuse, the built programs).
need_host() {
	local why=
	[ "$(id -u)" = 0 ] || why="needs root"
	[ -c /dev/fuse ] || why="needs /dev/fuse"
	[ -x "$server" ] || why="$server not built (make BUILD=${BUILD:-build/test} SANITIZE=1)"
	if [ -n "$why" ]; then
		for n in "$@"; do skip "$n" "$why"; done
		exit 0
	fi
}

work=$(mktemp -d /tmp/ext4cell-test.XXXXXX)
cleanup() {
	local m
	for m in $(awk -v w="$work" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r); do
		timeout -k 2 10 umount -l "$m" 2>/dev/null
	done
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT

# ec_run: a command (and arguments) ec_mount starts the server under, e.g. a
# stand-in for systemd's notification socket; none by default.
ec_run=()

# ec_mount IMAGE MOUNTPOINT [OPTIONS]: starts the server (pid in ec_pid, log
# in $work/server.log) and waits for the mount. Returns 1 if it never appears
# within 10 s or does not answer within 60 s (the server is then stopped).
ec_mount() {
	local img=$1 mnt=$2 opts=${3:-kernel} err=
	mkdir -p "$mnt"
	"${ec_run[@]}" "$server" -o "$opts" "$img" "$mnt" >"$work/server.log" 2>&1 &
	ec_pid=$!
	for _ in $(seq 100); do
		# the mount exists before the server opens the image: the first
		# request waits for it to serve, or fails if it gave up
		if awk -v m="$mnt" '$2 == m {f = 1} END {exit !f}' /proc/mounts; then
			err=$(timeout -k 2 60 stat "$mnt" 2>&1 >/dev/null)
			case $? in 124 | 137) err="ec_mount: the mount did not answer stat within 60 s" ;; esac
			case $err in
			*connect* | ec_mount:*) break ;;
			esac
			kill -0 "$ec_pid" 2>/dev/null && return 0
			break
		fi
		kill -0 "$ec_pid" 2>/dev/null || break
		sleep 0.1
	done
	timeout -k 2 10 umount -l "$mnt" 2>/dev/null
	ec_stop
	case $err in ec_mount:*) echo "$err" >>"$work/server.log" ;; esac
	return 1
}

# ec_umount MOUNTPOINT [SECONDS]: unmounts and waits at most SECONDS (default
# 60) for the server to exit; returns its status. A server still running then
# is reported (wait_gone) and stopped, and ec_umount returns 124.
ec_umount() {
	timeout -k 2 10 umount "$1" || timeout -k 2 10 umount -l "$1"
	wait_gone "$ec_pid" "${2:-60}" "ext4cell-server after umount $1" && return "$gone_status"
	ec_stop
	return 124
}

# ec_stop: ends the server: SIGTERM, then SIGKILL if it still runs 10 s later.
ec_stop() {
	kill "$ec_pid" 2>/dev/null
	wait_gone "$ec_pid" 10 "ext4cell-server after SIGTERM" 2>/dev/null && return
	kill -KILL "$ec_pid" 2>/dev/null
	wait_gone "$ec_pid" 10 "ext4cell-server after SIGKILL" 2>/dev/null
}

# wait_gone PID SECONDS WHAT: waits at most SECONDS for PID, a child of this
# shell, to exit; its wait status in $gone_status. If it still runs, prints '# '
# lines saying so and naming the processes that hold a copy of one of our mounts
# in another mount namespace (such a copy keeps a FUSE connection, and so its
# server, alive after our umount), and returns 1, PID left running.
wait_gone() {
	for _ in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "# $3 (pid $1) still runs after $2 s"
		mount_holders | sed 's/^/# /'
		return 1
	fi
	wait "$1"
	gone_status=$?
}

# mount_holders: every process in another mount namespace than this shell's
# whose mounts include one under $work, or a line saying there is none.
mount_holders() {
	local p at found=
	for p in /proc/[0-9]*; do
		[ "$p/ns/mnt" -ef "/proc/$$/ns/mnt" ] && continue
		at=$(awk -v w="$work/" 'index($5 "/", w) == 1 {print $5; exit}' "$p/mountinfo" 2>/dev/null)
		[ -n "$at" ] || continue
		echo "pid ${p#/proc/} ($(cat "$p/comm" 2>/dev/null)) holds a copy of $at in another mount namespace"
		found=1
	done
	[ -n "$found" ] || echo "no process in another mount namespace holds a mount under $work"
}

# ec_fsck NAME IMAGE: one test line for e2fsck -fn on IMAGE.
ec_fsck() {
	if e2fsck -fn "$2" >"$work/fsck.log" 2>&1; then ok "$1"; else notok "$1" "$work/fsck.log"; fi
}

# mkimg FILE SIZE MKFS-ARGS...: a fresh sparse image.
mkimg() {
	local f=$1 size=$2
	shift 2
	rm -f "$f"
	truncate -s "$size" "$f" && mkfs.ext4 -q -F "$@" "$f" >/dev/null 2>&1
}
