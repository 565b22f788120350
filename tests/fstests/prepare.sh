#!/bin/bash
# tests/fstests/prepare.sh: unpack the fstests snapshot, apply the upstream
# "support ext4 fuse testing" series and our own patches (tests/fstests/*.patch)
# and build it, once, in the cache outside the repository (keyed by a hash of
# the snapshot, the patches and this script). Prints the built tree's path.
# fstests' code and the series are third-party: they are read from
# FSTESTS_SRC, else ../shared/fstests next to the repository, else the copy
# the first run left in the cache (so a clone elsewhere finds them), and
# never copied into the repository.
# Environment: FSTESTS_SRC, EXT4CELL_CACHE (default /var/cache/ext4cell).
# Exit status: 0 built (path on stdout), 1 on a failure named on stderr,
# 2 when there is no fstests source anywhere.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${EXT4CELL_CACHE:-/var/cache/ext4cell}/fstests
die() { echo "fstests/prepare: $*" >&2; exit 1; }

for src in ${FSTESTS_SRC:-} "$repo/../shared/fstests" "$cache/src" ""; do
	[ -n "$src" ] && ls "$src"/xfstests-*.tar.xz >/dev/null 2>&1 && break
done
[ -n "$src" ] || { echo "fstests/prepare: no fstests snapshot (xfstests-*.tar.xz):" \
	"FSTESTS_SRC, $repo/../shared/fstests and $cache/src have none" >&2; exit 2; }
tarball=$(ls "$src"/xfstests-*.tar.xz | head -1)
series=("$src"/patches/0[0-9][0-9][0-9]-*.patch)
[ -f "${series[0]}" ] || die "no patch series in $src/patches"
ours=()
for p in "$repo"/tests/fstests/*.patch; do [ -f "$p" ] && ours+=("$p"); done

hash=$({
	sha256sum "$tarball" | cut -d' ' -f1
	for p in "${series[@]}" "${ours[@]}"; do basename "$p" && cat "$p"; done
	cat "$0"
} | sha256sum | cut -c1-16)
dir=$cache/$hash
mkdir -p "$cache"
exec 9>"$cache/build.lock"
flock 9
if [ "$src" != "$cache/src" ]; then
	rm -rf "$cache/src" && mkdir -p "$cache/src/patches"
	cp "$tarball" "$cache/src/" && cp "${series[@]}" "$cache/src/patches/"
fi
if [ -f "$dir/built" ]; then
	echo "$dir/xfstests"
	exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
log=$dir/build.log
tar -xJf "$tarball" -C "$dir" || die "cannot unpack $tarball"
cd "$dir/xfstests"
# The series against this snapshot: hunks that do not apply are listed (they
# touch xfs tests and a few others FSTYP=fuse.ext4 runs do not need; ours
# refresh the ones that matter).
: >"$dir/rejected"
for p in "${series[@]}"; do
	# patch(1): 0 applied, 1 some hunks rejected (listed), 2 trouble
	prc=0
	patch -p1 -F3 --forward --no-backup-if-mismatch -r - <"$p" >"$dir/patch.out" 2>&1 || prc=$?
	cat "$dir/patch.out" >>"$log"
	[ $prc -le 1 ] || die "$(basename "$p") cannot be applied (see $log)"
	# "PATCH FILE" for each file with a rejected hunk
	awk -v p="$(basename "$p")" '/^patching file / { f = $3 } /FAILED/ && f { print p, f; f = "" }' \
		"$dir/patch.out" >>"$dir/rejected"
done
for p in "${ours[@]}"; do
	patch -p1 --forward --no-backup-if-mismatch -s <"$p" >>"$log" 2>&1 ||
		die "our patch $(basename "$p") does not apply (see $log)"
done
echo "fstests/prepare: building fstests in $dir (about a minute)" >&2
make -j"$(nproc)" >>"$log" 2>&1 || die "fstests does not build (see $log)"
touch "$dir/built"
echo "$dir/xfstests"
