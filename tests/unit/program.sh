#!/bin/bash
# tests/unit/program.sh NAME PROGRAM: what every unit suite does: run the unit
# test program PROGRAM from the sanitizer build (`make BUILD=build/test
# SANITIZE=1`, or BUILD=... given here), or report it missing as a failure of
# NAME.
repo=$(cd "$(dirname "$0")/../.." && pwd)
prog=$repo/${BUILD:-build/test}/tests/unit/$2
if [ ! -x "$prog" ]; then
	echo "not ok - $1: test program built"
	echo "# $prog is missing: run make BUILD=${BUILD:-build/test} SANITIZE=1"
	exit 1
fi
exec "$prog"
