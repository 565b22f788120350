#!/bin/bash
# tests/images/security-report.sh: `make security-report`: SEEDS crafted
# images of every family through the server (crafted.sh), the TAP lines of
# the failures, then the table of outcomes; exit status 1 when an image
# failed. Writes the table to build/security-report.md as well.
# usage: security-report.sh SEEDS
repo=$(cd "$(dirname "$0")/../.." && pwd)
seeds=${1:-100}
[[ "$seeds" =~ ^[1-9][0-9]*$ ]] || { echo "security-report: SEEDS is a positive number (got '$seeds')" >&2; exit 2; }
mkdir -p "$repo/build"
out=$repo/build/security-report.md
bash "$repo/tests/images/crafted.sh" 1 "$seeds" --report "$out" | tee /tmp/security-report.$$ |
	grep -v "^ok - "
failed=$(grep -c "^not ok - crafted/[^ ]*/[0-9]" /tmp/security-report.$$)
rm -f /tmp/security-report.$$
[ -f "$out" ] || { echo "security-report: no report (see the lines above)" >&2; exit 1; }
cat "$out"
[ "$failed" = 0 ]
