#!/bin/bash
# kernel/build.sh: build ext4cell's guest kernel (bzImage) for one config.
#
# Usage: kernel/build.sh test|bench [--upto N]
#
# Downloads Debian's linux-source-6.12 .deb (never installs it), extracts it into
# a cache outside the clone, applies kernel/series, merges kernel/config/ onto
# tinyconfig and builds bzImage. The build is keyed by a hash of (source version,
# series and patch contents, config fragments): an unchanged rebuild takes seconds,
# and a changed series only reverts/applies the patches that differ, so make
# recompiles incrementally. The result is copied to build/kernel/CONFIG/bzImage.
# --upto N applies only the first N patches of the series and leaves the image in
# the cache tree (kernel/bisect-build.sh uses it to build every prefix).
#
# Environment: EXT4CELL_CACHE (default /var/cache/ext4cell), JOBS (default nproc).
set -euo pipefail

die() { echo "kernel/build.sh: $*" >&2; exit 1; }

usage="usage: kernel/build.sh test|bench [--upto N]"
cfg=${1:-}
case "$cfg" in
test | bench) ;;
*) die "$usage (got '${cfg}')" ;;
esac
upto=
if [ $# -gt 1 ]; then
	[ $# = 3 ] && [ "$2" = --upto ] && [[ "$3" =~ ^[0-9]+$ ]] || die "$usage"
	upto=$3
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${EXT4CELL_CACHE:-/var/cache/ext4cell}
jobs=${JOBS:-$(nproc)}
pkg=linux-source-6.12
out=$repo/build/kernel/$cfg
mkdir -p "$cache/deb" "$cache/kernel"

# One kernel build at a time on this machine, whatever the config.
exec 9>"$cache/kernel/build.lock"
flock 9

ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')
[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
	die "apt knows no $pkg; run 'apt-get update' (make deps does)"

# Patches named by kernel/series, in order.
mapfile -t patches < <("$repo/kernel/series-names.sh")
for p in "${patches[@]}"; do
	[ -f "$repo/kernel/patches/$p" ] || die "kernel/series names missing patch $p"
done
if [ -n "$upto" ]; then
	[ "$upto" -le ${#patches[@]} ] ||
		die "--upto $upto: kernel/series has only ${#patches[@]} patches"
	patches=("${patches[@]:0:$upto}")
	out=
fi
frags=("$repo/kernel/config/common.config" "$repo/kernel/config/$cfg.config")

hash=$({
	echo "$pkg $ver"
	for p in "${patches[@]}"; do echo "$p" && cat "$repo/kernel/patches/$p"; done
	cat "${frags[@]}"
} | sha256sum | cut -c1-16)

# Copy the image to build/kernel/CONFIG (full series only) and say where it is.
publish() {
	if [ -n "$out" ]; then
		mkdir -p "$out"
		cp "$src/arch/x86/boot/bzImage" "$src/.config" "$out/"
		echo "kernel/build.sh: $cfg kernel $1: $out/bzImage"
	else
		echo "kernel/build.sh: $cfg kernel with the first $upto patches $1: $src/arch/x86/boot/bzImage"
	fi
}

wt=$cache/kernel/$ver/$cfg
src=$wt/linux
state=$wt/state
if [ -f "$wt/stamp" ] && [ "$(cat "$wt/stamp")" = "$hash" ] &&
	[ -f "$src/arch/x86/boot/bzImage" ]; then
	publish "up to date ($ver, $hash)"
	exit 0
fi

start=$(date +%s)
extract() {
	local deb
	deb=$(ls "$cache/deb/${pkg}_${ver//:/%3a}_all.deb" 2>/dev/null || true)
	if [ -z "$deb" ]; then
		echo "kernel/build.sh: downloading $pkg $ver"
		(cd "$cache/deb" && apt-get download -q "$pkg=$ver" 2>&1 |
			grep -v 'unsandboxed' || true)
		deb=$(ls "$cache/deb/${pkg}_"*"_all.deb" | sort -V | tail -1)
	fi
	[ -f "$deb" ] || die "download of $pkg $ver failed"
	echo "kernel/build.sh: extracting $(basename "$deb")"
	rm -rf "$wt"
	mkdir -p "$src" "$state"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$pkg.tar.xz" | tar -xJ -C "$src" --strip-components=1
	: >"$state/applied"
}
[ -d "$src" ] && [ -f "$state/applied" ] || extract

# Revert applied patches back to the longest common prefix with the new series.
mapfile -t applied <"$state/applied"
keep=0
while [ $keep -lt ${#applied[@]} ] && [ $keep -lt ${#patches[@]} ] &&
	[ "${applied[$keep]}" = "${patches[$keep]}" ] &&
	cmp -s "$state/p$keep" "$repo/kernel/patches/${patches[$keep]}"; do
	keep=$((keep + 1))
done
for ((i = ${#applied[@]} - 1; i >= keep; i--)); do
	echo "kernel/build.sh: reverting ${applied[$i]}"
	if ! patch -d "$src" -p1 -R -s -f --no-backup-if-mismatch <"$state/p$i"; then
		echo "kernel/build.sh: revert failed; starting from a fresh tree" >&2
		extract
		keep=0
		break
	fi
done
: >"$state/applied.new"
for ((i = 0; i < keep; i++)); do echo "${patches[$i]}" >>"$state/applied.new"; done
mv "$state/applied.new" "$state/applied"
for ((i = keep; i < ${#patches[@]}; i++)); do
	p=${patches[$i]}
	echo "kernel/build.sh: applying $p"
	patch -d "$src" -p1 -s -f --no-backup-if-mismatch <"$repo/kernel/patches/$p" ||
		die "patch $p does not apply to $pkg $ver (tree left in $src)"
	cp "$repo/kernel/patches/$p" "$state/p$i"
	echo "$p" >>"$state/applied"
done

# Config: tinyconfig + fragments; every fragment line must survive olddefconfig.
rm -f "$wt/stamp"
make -C "$src" -s ARCH=x86_64 tinyconfig >/dev/null
(cd "$src" && scripts/kconfig/merge_config.sh -m .config "${frags[@]}" >/dev/null)
make -C "$src" -s ARCH=x86_64 olddefconfig >/dev/null
bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qx -- "$line" "$src/.config" || { echo "  wanted $line" && bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		! grep -q "^$opt=" "$src/.config" || { echo "  wanted $line" && bad=1; }
		;;
	esac
done < <(cat "${frags[@]}")
[ $bad = 0 ] || die "config fragments for '$cfg' did not apply (unmet dependencies above)"

echo "kernel/build.sh: building $cfg bzImage with -j$jobs (log: $wt/build.log)"
if ! make -C "$src" ARCH=x86_64 -j"$jobs" bzImage >"$wt/build.log" 2>&1 9>&-; then
	grep -E 'error|Error' "$wt/build.log" | head -40 >&2
	die "$cfg kernel build failed; full log in $wt/build.log"
fi
echo "$hash" >"$wt/stamp"
publish "built in $(($(date +%s) - start)) s"
