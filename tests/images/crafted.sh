#!/bin/bash
# tests/images/crafted.sh: crafted images (craft, families x seeds) through
# ext4cell-server on the host (classic FUSE, the sanitizer build, sandboxed
# as in production, errors=continue). Per image: mount; stat, read, readlink
# and getfattr of everything, ls -lR; create, mkdir, rename, overwrite with
# fsync, rm -r, truncate, syncfs; umount. Each operation may fail (EIO is a
# right answer to damage); the image FAILS when the server is killed by a
# signal (SIGSYS included) or exits while mounted, a sanitizer reports, an
# operation or the mount takes longer than 60 s, umount leaves the mount or
# the server behind, or the server's exit status after umount is not 0.
# Outcomes: refused (the server declined to serve it, with a message),
# served, served-with-EIO. Prints TAP lines (one per family; one per failed
# image, named crafted/FAMILY/SEED, with the server's log) and, with
# --report FILE, a markdown table of families x outcomes there.
# usage: crafted.sh FIRST-SEED LAST-SEED [--report FILE]
. "$(dirname "$0")/../host/lib.sh"
craft=$build/tests/images/craft
first=$1 last=$2 report=${4:-}
families=$("$craft" --list 2>/dev/null)
need_host $(for f in $families; do echo "crafted/$f"; done)
start=$(date +%s)
bash "$repo/tests/images/bases.sh" "$work" || { notok crafted/bases "cannot build the base images"; exit 1; }
bases=(ext4-csum ext4 ext3)

sanitizer() { grep -Eq "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$work/server.log"; }

# ops MNT: the walk and the writes; 124 when one of them hung, else 0; sets eio
ops() {
	local m=$1 op rc
	eio=0
	for op in "find $m -xdev -exec stat {} +" "find $m -xdev -type f -exec cat {} +" \
		"find $m -xdev -type l -exec readlink {} +" "getfattr -R -h -d -m - $m" "ls -lR $m" \
		"echo new >$m/new && mkdir $m/nd && mv $m/new $m/nd/moved" \
		"dd if=/dev/zero of=$m/file bs=1024 count=8 conv=notrunc,fsync status=none" \
		"rm -rf $m/dir" "truncate -s 1000 $m/sparse" "sync -f $m"; do
		timeout -k 2 60 bash -c "$op" >/dev/null 2>"$work/op.err"
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "'$op' took longer than 60 s" >>"$work/server.log"
			return 124
		fi
		grep -Eq "Input/output error|Structure needs cleaning" "$work/op.err" && eio=1
	done
	return 0
}

# image FAMILY SEED: one image; its outcome in $outcome, 1 when it failed
image() {
	local img=$work/img mnt=$work/mnt why=
	outcome=failed
	"$craft" "$1" "$2" "$work/${bases[$2 % 3]}.img" "$img" 2>"$work/craft.log" ||
		{ notok "crafted/$1/$2" "craft failed" "$work/craft.log"; return 1; }
	if ! ec_mount "$img" "$mnt" kernel,errors=continue; then
		if grep -q "^ec_mount:" "$work/server.log"; then why="the mount hung"
		elif [ "${gone_status:-0}" -ge 128 ]; then why="server killed by signal $((gone_status - 128))"
		elif sanitizer; then why="sanitizer report"
		fi
		outcome=refused
	else
		ops "$mnt" || why="an operation hung"
		kill -0 "$ec_pid" 2>/dev/null || why=${why:-"the server exited while mounted"}
		ec_umount "$mnt" 30
		rc=$?
		[ $rc = 0 ] || why=${why:-"server exit status $rc after umount"}
		awk -v m="$mnt" '$2 == m {f = 1} END {exit !f}' /proc/mounts && why=${why:-"mount left behind"}
		sanitizer && why=${why:-"sanitizer report"}
		outcome=served
		[ $eio = 1 ] && outcome=served-with-EIO
	fi
	if [ -n "$why" ]; then
		outcome=failed
		notok "crafted/$1/$2" "$why" "$work/craft.log" "$work/server.log"
		timeout -k 2 10 umount -l "$mnt" 2>/dev/null
		return 1
	fi
}

declare -A count
for f in $families; do
	for s in $(seq "$first" "$last"); do
		image "$f" "$s"
		count[$f/$outcome]=$((${count[$f/$outcome]:-0} + 1))
	done
	summary="${count[$f/refused]:-0} refused, ${count[$f/served]:-0} served, ${count[$f/served-with-EIO]:-0} served with EIO"
	if [ "${count[$f/failed]:-0}" = 0 ]; then
		ok "crafted/$f ($summary)"
	else
		notok "crafted/$f" "${count[$f/failed]} failed; $summary"
	fi
done
if [ -n "$report" ]; then
	{
		echo "| family | images | refused | served | served with EIO | failed |"
		echo "|---|---|---|---|---|---|"
		for f in $families; do
			echo "| $f | $((last - first + 1)) | ${count[$f/refused]:-0} | ${count[$f/served]:-0} |" \
				"${count[$f/served-with-EIO]:-0} | ${count[$f/failed]:-0} |"
		done
		echo
		echo "Seeds $first-$last per family, host kernel (classic FUSE), sanitizer build," \
			"$(($(date +%s) - start)) s."
	} >"$report"
fi
