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
