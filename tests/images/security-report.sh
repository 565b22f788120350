#!/bin/bash
# tests/images/security-report.sh: `make security-report`: the security suite
# in full, one report. Parts, each a table: SEEDS crafted images of every
# family through the server on the host (crafted.sh, classic mode);
# GUEST-SEEDS of every family as users mount them in the test kernel's guest,
# iomap and classic mode (tests/qemu/crafted.suite); the containment of a
# compromised server (the sandbox's triggers, resource limits and the
# helper's answers to hostile servers: tests/unit/seccomp_test,
# seccomp.suite, helper.suite, helper-user.suite); FUZZ-SEEDS runs of a
# server fuzzing its replies against the kernel (tests/iomap/guest.sh fuzz).
# Prints the TAP lines of failures, then the report, which also goes to
# build/security-report.md; exit status 1 when anything failed. The guest parts need the test kernel (make kernel).
# usage: security-report.sh SEEDS [GUEST-SEEDS [FUZZ-SEEDS]]
repo=$(cd "$(dirname "$0")/../.." && pwd)
seeds=${1:-100} gseeds=${2:-5} fseeds=${3:-24}
for n in "$seeds" "$gseeds" "$fseeds"; do
	[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "security-report: seed counts are positive numbers (got '$n')" >&2; exit 2; }
done
kernel=$repo/build/kernel/test/bzImage
out=$repo/build/security-report.md
tmp=$(mktemp -d /tmp/ext4cell-security.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
failed=0
# part NAME COMMAND...: runs a part, its failures to the terminal, counts them
part() {
	local name=$1 t0
	shift
	t0=$(date +%s)
	"$@" >"$tmp/$name.tap" 2>&1
	grep -A30 "^not ok" "$tmp/$name.tap" | grep -E "^(not ok|#)" | head -200
	failed=$((failed + $(grep -c "^not ok" "$tmp/$name.tap")))
	echo "$(($(date +%s) - t0))" >"$tmp/$name.time"
}

part host bash "$repo/tests/images/crafted.sh" 1 "$seeds" --report "$tmp/host.md"
if [ -f "$kernel" ]; then
	part guest env EC_CRAFTED_GUEST_SEEDS="$gseeds" EC_CRAFTED_REPORT="$tmp/guest.md" \
		bash "$repo/tests/qemu/crafted.suite"
	truncate -s 32M "$tmp/fuzz.img"
	head -c 4M /dev/urandom >"$tmp/bystander.img"
	part fuzz "$repo/tests/qemu/vm" -q --timeout $((300 + fseeds * 120)) --smp 2 --kernel "$kernel" \
		--disk "$tmp/fuzz.img" --disk "$tmp/bystander.img" \
		-- tests/iomap/guest.sh "$repo/build/test/tests" fuzz "$(seq -s ' ' 1 "$fseeds")"
	# the guest prints "case fuzz-N ok|FAIL..." lines: failures and missing seeds count
	for s in $(seq 1 "$fseeds"); do
		grep -q "^guest: case fuzz-$s ok" "$tmp/fuzz.tap" ||
			{ echo "not ok - fuzz-$s: $(grep -m1 "^guest: case fuzz-$s " "$tmp/fuzz.tap" || echo no result)"
			  failed=$((failed + 1)); }
	done
else
	echo "# no test kernel ($kernel): the guest parts are left out (make kernel)"
	failed=$((failed + 1))
fi
part containment bash -c "'$repo/build/test/tests/unit/seccomp_test'; bash '$repo/tests/host/seccomp.suite';
	bash '$repo/tests/host/helper.suite'; bash '$repo/tests/host/helper-user.suite'"

{
	echo "# ext4cell security report"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$repo" describe --always --dirty 2>/dev/null)," \
		"$(nproc) CPUs; $([ "$failed" = 0 ] && echo "no failure" || echo "$failed FAILURES")," \
		"$(($(date +%s) - start)) s in all."
	echo
	echo "## Crafted images, host kernel, classic mode ($(cat "$tmp/host.time") s)"
	echo
	cat "$tmp/host.md" 2>/dev/null || echo "(no table: see the failures above)"
	if [ -f "$tmp/guest.md" ]; then
		echo
		echo "## Crafted images through mount.fuse.ext4 in the test kernel's guest ($(cat "$tmp/guest.time") s)"
		echo
		cat "$tmp/guest.md"
		grep -E "^(not )?ok - crafted-[a-z]+/(bystander-disk|kernel-log|no-loop-left)" "$tmp/guest.tap" |
			sed 's/^/    /'
	fi
	echo
	echo "## Containment of a compromised server ($(cat "$tmp/containment.time") s)"
	echo
	echo "| case | result |"
	echo "|---|---|"
	grep -E "^(not )?ok - (seccomp: .*(SIGSYS|ENOMEM)|sandbox/trigger|helper/refuse (server|malformed)|helper-user/server verdict)" \
		"$tmp/containment.tap" | sed -E 's/^ok - (.*)$/| \1 | ok |/; s/^not ok - (.*)$/| \1 | FAILED |/'
	if [ -f "$tmp/fuzz.tap" ]; then
		echo
		echo "## A server fuzzing its replies against the kernel ($(cat "$tmp/fuzz.time") s)"
		echo
		echo "tests/iomap/iomap-test-server --fuzz SEED under iomap-chaos (2 processes, 15 s);" \
			"every fourth seed in classic mode."
		echo
		echo "| seed | mode | replies | mutated | refused writes | notifications (dropped) | workload ops | result |"
		echo "|---|---|---|---|---|---|---|---|"
		sed -n 's/^guest: case fuzz-\([0-9]*\) ok: \([^ ]*\) replies=\([0-9]*\) mutated=\([0-9]*\) rejected=\([0-9]*\) notified=\([0-9]*\) dropped=\([0-9]*\) ops=\([0-9]*\).*/| \1 | \2 | \3 | \4 | \5 | \6 (\7) | \8 | ok |/p' \
			"$tmp/fuzz.tap" | sed 's/| --no-iomap |/| classic |/'
		sed -n 's/^guest: case fuzz-\([0-9]*\) FAIL: \(.*\)/| \1 | | | | | | | FAILED: \2 |/p' "$tmp/fuzz.tap"
	fi
} >"$out"
cat "$out"
[ "$failed" = 0 ]
