#!/bin/bash
# tests/fstests/run.sh: `make fstests`: fstests (tests/fstests/prepare.sh builds
# it) in the QEMU guest, one boot per target (tests/fstests/guest.sh), and one
# table: test | each target (pass, fail, notrun, hung), totals, wall time per
# target, into build/fstests/report.md; each target's results (check's
# output, .out.bad and .full files, dmesg) under build/fstests/TARGET/.
# Environment:
#   FSTESTS_TARGETS   default "ext4 fuse2fs ext4cell-classic ext4cell-iomap"
#   FSTESTS_GROUP     an fstests group (default quick), or
#   FSTESTS_LIST      a file of test names (one per line, # comments)
#   FSTESTS_KERNEL    the guest kernel (default build/kernel/bench/bzImage)
#   FSTESTS_WATCHDOG  seconds a test may run before it is killed (default 600)
# Exit status 1 when, for an ext4cell target, a test fails or hangs that
# kernel ext4 passed (or that ran without ext4) and tests/fstests/expected-
# failures does not list, or a guest's kernel log has a splat; 0 otherwise.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
targets=${FSTESTS_TARGETS:-"ext4 fuse2fs ext4cell-classic ext4cell-iomap"}
kernel=${FSTESTS_KERNEL:-$repo/build/kernel/bench/bzImage}
watchdog=${FSTESTS_WATCHDOG:-600}
out=${FSTESTS_OUT:-$repo/build/fstests}
expected=$repo/tests/fstests/expected-failures
die() { echo "fstests: $*" >&2; exit 1; }

if [ -n "${FSTESTS_LIST:-}" ]; then
	[ -f "$FSTESTS_LIST" ] || die "FSTESTS_LIST=$FSTESTS_LIST: no such file"
	mapfile -t args < <(sed 's/#.*//; s/[[:space:]]*$//; /^$/d' "$FSTESTS_LIST")
	[ ${#args[@]} -gt 0 ] || die "FSTESTS_LIST=$FSTESTS_LIST names no test"
	what="the ${#args[@]} tests of $FSTESTS_LIST"
	limit=$((600 + ${#args[@]} * 300))	# a whole guest: most tests take seconds
else
	args=(-g "${FSTESTS_GROUP:-quick}")
	what="group ${FSTESTS_GROUP:-quick}"
	limit=$((6 * 3600))
fi
[ -f "$kernel" ] || die "no guest kernel $kernel (make kernel KCONFIG=bench)"
fst=$(bash "$repo/tests/fstests/prepare.sh") || exit 1
for t in $targets; do
	case $t in ext4 | fuse2fs | ext4cell-classic | ext4cell-iomap) ;;
	*) die "unknown target '$t' (targets: ext4 fuse2fs ext4cell-classic ext4cell-iomap)" ;;
	esac
done

mkdir -p "$out"
tmp=$(mktemp -d /tmp/ext4cell-fstests.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0
for t in $targets; do
	echo "fstests: $t: $what ($(date -u +%H:%M) UTC)" >&2
	rm -f "$tmp"/*.img
	truncate -s 3G "$tmp/test.img" "$tmp/scratch.img"
	truncate -s 256M "$tmp/results.img"
	t0=$(date +%s)
	"$repo/tests/qemu/vm" -q --smp 2 --timeout "$limit" \
		--kernel "$kernel" --disk "$tmp/test.img" --disk "$tmp/scratch.img" --disk "$tmp/results.img" \
		-- bash tests/fstests/guest.sh "$t" "$fst" "$watchdog" "${args[@]}" >"$tmp/$t.log" 2>&1
	rc=$?
	echo $(($(date +%s) - t0)) >"$tmp/$t.time"
	sed -n 's/^guest: fstests: //p' "$tmp/$t.log" | grep -v '^kernel-log' >"$tmp/$t.res"
	rm -rf "${out:?}/$t" && mkdir -p "$out/$t"
	tar -C "$out/$t" -xf "$tmp/results.img" 2>/dev/null
	cp "$tmp/$t.log" "$out/$t/guest.log"
	if ! grep -q '^guest: fstests: kernel-log ok' "$tmp/$t.log"; then
		echo "fstests: $t: the guest's kernel log has a splat, or the guest did not finish (vm status $rc); see $out/$t/guest.log" >&2
		failed=$((failed + 1))
	fi
done

# The table: every test any target ran, a column per target.
cells() { # TARGET TEST: the cell
	local l
	l=$(grep -m1 "^$2 " "$tmp/$1.res" 2>/dev/null) || { echo "-"; return; }
	l=${l#"$2 "}
	case $l in
	pass) echo pass ;;
	notrun*) echo "notrun: ${l#notrun }" | cut -c1-60 ;;
	*) echo "**${l%% *}**: ${l#* }" | cut -c1-80 ;;
	esac
}
tests=$(cat "$tmp"/*.res 2>/dev/null | cut -d' ' -f1 | sort -u)
{
	echo "# fstests: $what"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$repo" describe --always --dirty 2>/dev/null)," \
		"kernel $(basename "$(dirname "$kernel")"), watchdog ${watchdog} s"
	echo
	printf '| test |'; for t in $targets; do printf ' %s |' "$t"; done; echo
	printf '|---|'; for t in $targets; do printf -- '---|'; done; echo
	for n in $tests; do
		printf '| %s |' "$n"
		for t in $targets; do printf ' %s |' "$(cells "$t" "$n")"; done
		echo
	done
	for k in pass fail notrun hung; do
		printf '| **%s** |' "$k"
		for t in $targets; do printf ' %s |' "$(grep -c "^[^ ]* $k" "$tmp/$t.res" 2>/dev/null)"; done
		echo
	done
	printf '| **wall time (s)** |'; for t in $targets; do printf ' %s |' "$(cat "$tmp/$t.time")"; done; echo
} >"$out/report.md"

# Our failures that ext4 does not share and the expected-failures file does not list.
for t in $targets; do
	case $t in ext4cell-*) ;; *) continue ;; esac
	while read -r n st rest; do
		case $st in fail | hung) ;; *) continue ;; esac
		if [[ " $targets " == *" ext4 "* ]] && ! grep -q "^$n pass" "$tmp/ext4.res"; then continue; fi
		grep -q "^$n[[:space:]]" "$expected" 2>/dev/null && continue
		echo "fstests: $t: $n $st: $rest" >&2
		failed=$((failed + 1))
	done <"$tmp/$t.res"
done
cat "$out/report.md"
echo "fstests: $([ $failed = 0 ] && echo "no unexpected failure" || echo "$failed unexpected failures"); report in $out/report.md" >&2
[ $failed = 0 ]
