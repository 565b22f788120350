#!/bin/bash
# kernel/bisect-flavours.sh: build fs/fuse at every prefix of kernel/series in
# the build flavours that the guest kernels do not cover, and fail on a build
# error or on a warning that the unpatched tree does not have. Every flavour
# builds all of fs/fuse: CUSE and virtio-fs with DAX too (dax.c shares names
# with the iomap files), which the guest configs leave out.
#   module     CONFIG_FUSE_FS=m (with CONFIG_MODULES)
#   no-iomap   CONFIG_FUSE_IOMAP off: the series must leave classic FUSE intact
#   w1         make W=1 (extra compiler warnings)
#   sparse     make C=2 (sparse on every file of fs/fuse)
#   clang      make LLVM=1 (clang and the LLVM binutils)
# Each flavour is an out-of-tree build (O=) of one clean source tree in the
# cache, which git moves from prefix to prefix, so a step recompiles fs/fuse
# only. Warnings are compared without line numbers with those of prefix 0.
#
# Usage: kernel/bisect-flavours.sh [FLAVOUR...]   (default: all five)
# Environment: EXT4CELL_CACHE (default /var/cache/ext4cell), JOBS (default nproc).
# Needs the linux-source .deb that kernel/build.sh downloads (make kernel).
set -uo pipefail

die() { echo "kernel/bisect-flavours.sh: $*" >&2; exit 2; }

all=(module no-iomap w1 sparse clang)
flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=("${all[@]}")
for f in "${flavours[@]}"; do
	[[ " ${all[*]} " == *" $f "* ]] || die "unknown flavour '$f' (known: ${all[*]})"
done

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${EXT4CELL_CACHE:-/var/cache/ext4cell}
jobs=${JOBS:-$(nproc)}
pkg=linux-source-6.12
ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "apt knows no $pkg; run 'make deps'"
deb=$cache/deb/${pkg}_${ver//:/%3a}_all.deb
[ -f "$deb" ] || die "no $deb: run 'make kernel' first"
mapfile -t patches < <("$repo/kernel/series-names.sh")
n=${#patches[@]}

# Tools each flavour needs, checked before any work starts.
for f in "${flavours[@]}"; do
	case $f in
	sparse) command -v sparse >/dev/null || die "flavour sparse needs sparse (make deps)" ;;
	clang) command -v clang >/dev/null && command -v ld.lld >/dev/null ||
		die "flavour clang needs clang and lld: apt-get install clang lld" ;;
	esac
done

exec 9>"$cache/kernel/build.lock"
flock 9

top=$cache/kernel/$ver/flavours
src=$top/linux
if ! git -C "$src" rev-parse -q --verify pristine >/dev/null 2>&1; then
	echo "kernel/bisect-flavours.sh: extracting $(basename "$deb") into $src"
	rm -rf "$top"
	mkdir -p "$src"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$pkg.tar.xz" | tar -xJ -C "$src" --strip-components=1 ||
		die "extracting $deb failed"
	# Debian's top-level .gitignore ignores everything: add by force.
	(cd "$src" && git init -q && git add -f -A . &&
		git -c user.name=ext4cell -c user.email=ext4cell@invalid commit -qm pristine &&
		git tag pristine) || die "cannot make a git tree of $src"
fi

# The source at prefix I: pristine plus the first I patches.
set_prefix() {
	git -C "$src" reset -q --hard pristine && git -C "$src" clean -fdxq || return 1
	for ((j = 0; j < $1; j++)); do
		patch -d "$src" -p1 -s -f --no-backup-if-mismatch \
			<"$repo/kernel/patches/${patches[$j]}" || return 1
	done
}

# The config of flavour F in its output directory: the test guest's, plus
# the flavour's lines, every one of which must survive olddefconfig.
configure() {
	local f=$1 out=$2 extra line opt fuse=y
	[ "$f" != module ] || fuse=m
	extra=(CONFIG_MEMORY_HOTPLUG=y CONFIG_MEMORY_HOTREMOVE=y CONFIG_SPARSEMEM_VMEMMAP=y
		CONFIG_ZONE_DEVICE=y
		CONFIG_FS_DAX=y "CONFIG_FUSE_FS=$fuse" "CONFIG_CUSE=$fuse"
		"CONFIG_VIRTIO_FS=$fuse" CONFIG_FUSE_DAX=y)
	case $f in
	module) extra+=(CONFIG_MODULES=y) ;;
	no-iomap) extra+=("# CONFIG_FUSE_IOMAP is not set") ;;
	esac
	make -C "$src" -s O="$out" ARCH=x86_64 "${mk[@]}" tinyconfig >/dev/null || return 1
	printf '%s\n' "${extra[@]}" >"$out/flavour.config"
	(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m .config \
		"$repo/kernel/config/common.config" "$repo/kernel/config/test.config" \
		flavour.config >/dev/null) || return 1
	make -C "$src" -s O="$out" ARCH=x86_64 "${mk[@]}" olddefconfig >/dev/null || return 1
	for line in "${extra[@]}"; do
		case $line in
		CONFIG_*) grep -qx -- "$line" "$out/.config" || return 1 ;;
		"# CONFIG_"*)
			opt=${line#\# }
			! grep -q "^${opt%% *}=" "$out/.config" || return 1
			;;
		esac
	done
}

failed=0
for f in "${flavours[@]}"; do
	out=$top/out-$f
	mk=()
	case $f in
	w1) mk=(W=1) ;;
	sparse) mk=(C=2) ;;
	clang) mk=(LLVM=1) ;;
	esac
	mkdir -p "$out"
	for ((i = 0; i <= n; i++)); do
		name="(no patches)"
		[ $i = 0 ] || name=${patches[$((i - 1))]}
		start=$(date +%s)
		if ! set_prefix $i; then
			echo "not ok - $f $i $name: the series does not apply"
			failed=1
			break
		fi
		if ! configure "$f" "$out"; then
			echo "not ok - $f $i $name: the flavour's config did not apply"
			failed=1
			break
		fi
		rm -f "$out"/fs/fuse/*.o
		if ! make -C "$src" O="$out" ARCH=x86_64 -j"$jobs" "${mk[@]}" fs/fuse/ \
			>"$out/build-$i.log" 2>&1; then
			echo "not ok - $f $i $name: build failed"
			grep -E 'error|Error' "$out/build-$i.log" | head -20 | sed 's/^/# /'
			failed=1
			break
		fi
		grep -a 'warning:' "$out/build-$i.log" | sed -E 's/:[0-9]+(:[0-9]+)?:/:/' |
			sort -u >"$out/warnings-$i"
		new=$(comm -13 "$out/warnings-0" "$out/warnings-$i")
		secs=$(($(date +%s) - start))
		if [ -n "$new" ]; then
			echo "not ok - $f $i $name: new warnings (${secs} s)"
			head -20 <<<"$new" | sed 's/^/# /'
			failed=1
		else
			echo "ok - $f $i $name (${secs} s)"
		fi
	done
done
set_prefix "$n" || failed=1
if [ $failed = 0 ]; then
	echo "kernel/bisect-flavours.sh: every prefix builds in ${flavours[*]} without new warnings"
fi
exit $failed
