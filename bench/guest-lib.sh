# bench/guest-lib.sh: shell functions the benchmarks' guest scripts share.

# mbps CMD...: MB/s of a dd command, from its own byte count and seconds
mbps() {
	"$@" 2>&1 | awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") t = $(i - 1)
		printf "%.1f", $1 / t / 1e6 }'
}
# cold: nothing of the test files left in the page cache
cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }
# best A B: the larger number
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b + 0 > a + 0) ? b : a }'; }
# start_ec_listener REPO SOCKET LOG: ext4cell-server socket-activated on
# SOCKET as its systemd unit would be (one instance per mount), output to LOG
start_ec_listener() {
	systemd-socket-activate --accept --seqpacket -l "$2" "$1/build/ext4cell-server" --socket \
		2>"$3" &
	for _ in $(seq 100); do [ -S "$2" ] && return 0; sleep 0.1; done
	echo "bench: no listener on $2" >&2
	return 1
}
