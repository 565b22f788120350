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
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT

# ec_mount IMAGE MOUNTPOINT [OPTIONS]: starts the server (pid in ec_pid, log
# in $work/server.log) and waits for the mount. Returns 1 if it never appears.
ec_mount() {
	local img=$1 mnt=$2 opts=${3:-kernel} i
	mkdir -p "$mnt"
	"$server" -o "$opts" "$img" "$mnt" >"$work/server.log" 2>&1 &
	ec_pid=$!
	local err
	for i in $(seq 100); do
		# the mount exists before the server opens the image: the first
		# request waits for it to serve, or fails if it gave up
		if awk -v m="$mnt" '$2 == m {f = 1} END {exit !f}' /proc/mounts; then
			err=$(stat "$mnt" 2>&1 >/dev/null)
			case $err in
			*connect*) break ;;
			esac
			kill -0 "$ec_pid" 2>/dev/null && return 0
			break
		fi
		kill -0 "$ec_pid" 2>/dev/null || break
		sleep 0.1
	done
	umount -l "$mnt" 2>/dev/null
	kill "$ec_pid" 2>/dev/null
	wait "$ec_pid" 2>/dev/null
	return 1
}

# ec_umount MOUNTPOINT: unmounts and waits for the server; returns its status.
ec_umount() {
	umount "$1" || umount -l "$1"
	wait "$ec_pid"
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
