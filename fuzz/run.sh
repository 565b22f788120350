#!/bin/bash
# fuzz/run.sh SECONDS [CORPUS_ROOT]: what `make fuzz` and tests/fuzz/fuzz.suite
# run, on the targets in build/fuzz/bin (make fuzz-build). For each target:
# first every regression input of tests/fuzz-regress/TARGET/ once (each a bug
# that was found and fixed), then SECONDS of fuzzing, nice 19, one target at a
# time, on CORPUS_ROOT/TARGET (default build/fuzz/corpus/TARGET, kept between
# runs) and the seeds (build/fuzz/seeds/TARGET), with fuzz/ext4.dict for the
# image and journal targets. One TAP line per target and step (tests/run's format); for
# fuzzing it gives executions/s, coverage (libFuzzer's cov: edges and ft:
# features at the end) and the finding, kept under build/fuzz/findings/.
# Exit status 1 when anything failed.
set -u
cd "$(dirname "$0")/.."
secs=${1:-60} root=${2:-build/fuzz/corpus} bin=build/fuzz/bin
targets=(image journal proto)
# a hang (-timeout, seconds per input) or a runaway allocation is a finding
opts=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1)
# the largest seed images are 2 MiB (libFuzzer's default stops at 1 MiB)
opts+=(-max_len=2097152)
failed=0

notok() { # notok NAME LOG: a failure and its report (or the end of the log)
	echo "not ok - $1"
	{ grep -q 'ERROR: ' "$2" && sed -n '/ERROR: /,$p' "$2" || tail -n 25 "$2"; } |
		head -n 40 | sed 's/^/# /'
	failed=1
}

for t in "${targets[@]}"; do
	if [ ! -x "$bin/$t" ]; then
		echo "not ok - fuzz/$t: $bin/$t is missing (make fuzz-build)"
		failed=1
		continue
	fi
	log=$(mktemp)
	regress=(tests/fuzz-regress/"$t"/*)
	if [ -e "${regress[0]}" ]; then
		if nice -n 19 "$bin/$t" "${opts[@]}" "${regress[@]}" >"$log" 2>&1; then
			echo "ok - fuzz/$t/regress: ${#regress[@]} inputs"
		else
			notok "fuzz/$t/regress" "$log"
		fi
	fi
	corpus=$root/$t findings=build/fuzz/findings/$t
	mkdir -p "$corpus" "$findings"
	dict=()
	[ "$t" != proto ] && dict=(-dict=fuzz/ext4.dict)
	before=$(ls "$findings" | wc -l)
	t0=$(date +%s)
	nice -n 19 "$bin/$t" "${opts[@]}" "${dict[@]}" -max_total_time="$secs" \
		-artifact_prefix="$findings/" "$corpus" "build/fuzz/seeds/$t" >"$log" 2>&1
	rc=$?
	stats=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) .*/cov \1, ft \2/p' <<<"$stats")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	summary="$(($(date +%s) - t0)) s, ${eps:-?} exec/s, ${cov:-no coverage line}, corpus $(ls "$corpus" | wc -l)"
	found=$(ls -t "$findings" | head -n "$(($(ls "$findings" | wc -l) - before))")
	if [ $rc = 0 ] && [ -z "$found" ]; then
		echo "ok - fuzz/$t: $summary"
	else
		notok "fuzz/$t: $summary; finding: ${found:-exit status $rc}" "$log"
	fi
	rm -f "$log"
done
exit $failed
