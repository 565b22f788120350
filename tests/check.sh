#!/bin/bash
# tests/check.sh: what `make check` runs: build the user-space programs with
# ASan/UBSan into build/test and as released into build/ (a test checks that the
# release server carries no test triggers) and the fuzz targets with clang
# (make fuzz-build, for tests/fuzz), check that HEAD builds on a fresh
# Debian 12 (tests/fresh-machine.sh, about 1 min with its cache, 3 cold), build
# (or reuse) the test kernel, run every test layer with tests/run, and print how
# long each phase took. The last line of the output is tests/run's
# 'N passed, N failed, N skipped'.
set -u
cd "$(dirname "$0")/.."
phase() { # phase NAME COMMAND...: run, time, stop on failure
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	"$@"
	rc=$?
	echo "# phase $name: $(($(date +%s) - t0)) s (status $rc)"
	[ $rc = 0 ] || { echo "0 passed, 1 failed"; exit 1; }
}
phase build make -s -j"$(nproc)" BUILD=build/test SANITIZE=1 all
phase build-release make -s -j"$(nproc)" all
phase build-fuzz make -s fuzz-build
phase fresh-machine bash tests/fresh-machine.sh
phase kernel bash kernel/build.sh test
exec tests/run
