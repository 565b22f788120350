#!/bin/bash
# tests/qemu/harness-mutants.sh: show that each harness test can fail. Copies
# the tree, breaks the condition each test of harness.suite checks (one
# mutation per test, all in the same copy), runs the mutated suite and passes
# only if every one of its tests reports 'not ok'. A developer check, not part
# of `make check` (it boots the same three guests, a few minutes):
#   exit-status     the guest exits 41 where the suite wants 42
#   ext4-kernel,    fs-roundtrip.sh appends to the file between write and
#   ext4-fuse2fs    read back (one mutation serves both mounts)
#   warn-caught     the LKDTM trigger is written to /dev/null instead
#   systemd-socket  the echo instance answers with another prefix
# Needs the test kernel (make kernel KCONFIG=test).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$repo/build/kernel/test/bzImage" ] || { echo "harness-mutants: no test kernel; run make kernel" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ext4cell-mutants.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tree"
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$tmp/tree")
mkdir -p "$tmp/tree/build/kernel/test"
cp "$repo/build/kernel/test/bzImage" "$tmp/tree/build/kernel/test/"
m=$tmp/tree/tests/qemu
mutate() { # mutate FILE SED-EXPRESSION: apply, and fail if nothing changed
	cp "$1" "$tmp/orig"
	sed -i "$2" "$1"
	! cmp -s "$1" "$tmp/orig" || { echo "harness-mutants: '$2' changed nothing in $1" >&2; exit 2; }
}
mutate "$m/harness.suite" "s/; exit 42'/; exit 41'/"
mutate "$m/guest/fs-roundtrip.sh" \
	's|^got=\$(sha256sum|echo x >>"$mnt/data"\n&|'
mutate "$m/harness.suite" 's|echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT|echo WARNING > /dev/null|'
mutate "$m/units/ext4cell-echo@.service" 's/echo from/echo FROM/'

out=$("$m/harness.suite" 2>&1)
echo "$out" | grep -E "^(not )?ok|FAILED|exited|kernel-log|unexpected" | cut -c1-200
bad=0
for t in exit-status ext4-kernel ext4-fuse2fs warn-caught systemd-socket; do
	if grep -q "^not ok - qemu/$t\$" <<<"$out"; then
		echo "harness-mutants: $t caught its mutant"
	else
		echo "harness-mutants: $t did NOT fail with its condition broken"
		bad=1
	fi
done
exit $bad
