#!/bin/bash
# kernel/bisect-build.sh: prove the series is bisectable: build the kernel with
# the first N patches of kernel/series for every N from 0 to the whole series,
# in the cached tree of one config (kernel/build.sh --upto N, so each step only
# recompiles what that patch touched), and fail on a build error or on any
# compiler warning in the files a step recompiled. Ends with the whole series
# built again, as `make kernel` leaves it.
#
# Usage: kernel/bisect-build.sh [test|bench [FIRST]]   (default test, from 0;
# FIRST skips the shorter prefixes, e.g. after editing only later patches;
# about a minute per patch on 2 cores once the config has been built whole)
set -uo pipefail

cfg=${1:-test}
first=${2:-0}
[[ "$first" =~ ^[0-9]+$ ]] || { echo "kernel/bisect-build.sh: FIRST must be a number (got '$first')" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${EXT4CELL_CACHE:-/var/cache/ext4cell}
build=$repo/kernel/build.sh
mapfile -t patches < <("$repo/kernel/series-names.sh")
n=${#patches[@]}
failed=0

for ((i = first; i <= n; i++)); do
	name="(no patches)"
	[ $i = 0 ] || name=${patches[$((i - 1))]}
	args=("$cfg")
	[ $i = "$n" ] || args+=(--upto $i)
	start=$(date +%s)
	out=$(bash "$build" "${args[@]}" 2>&1)
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc != 0 ]; then
		echo "not ok - $i $name: build failed (${secs} s)"
		tail -20 <<<"$out" | sed 's/^/# /'
		failed=1
		break
	fi
	# The log of the build just done: only what this step recompiled.
	log=$(ls -t "$cache"/kernel/*/"$cfg"/build.log | head -1)
	if grep -q 'warning:' "$log"; then
		echo "not ok - $i $name: compiler warnings (${secs} s)"
		grep 'warning:' "$log" | head -20 | sed 's/^/# /'
		failed=1
		continue
	fi
	echo "ok - $i $name (${secs} s)"
done
if [ $failed = 0 ]; then
	echo "kernel/bisect-build.sh: prefixes $first..$n of the series build ($cfg) without warnings"
fi
exit $failed
