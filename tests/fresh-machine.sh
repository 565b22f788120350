#!/bin/bash
# tests/fresh-machine.sh (make check-fresh): proves that the README's build
# command works, as one invocation, on a Debian 12 machine that has none of the
# packages. A pristine copy of a cached debootstrap minbase chroot (plus make,
# which the README's commands need) gets a `git archive HEAD` of the repository
# and this host's apt sources, and runs `make deps all`, then the test build
# `make deps all BUILD=build/test SANITIZE=1`, as root inside it. Packages come
# from apt as on a new machine; the downloaded .debs are kept in the cache
# (${EXT4CELL_CACHE:-/var/cache/ext4cell}/fresh) so a second run skips the
# download. Prints timings; the last line is 'N passed, N failed'.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${EXT4CELL_CACHE:-/var/cache/ext4cell}/fresh
include=make
base=$cache/base-$(echo "bookworm minbase $include" | sha256sum | cut -c1-16)
root=$cache/root
pass=0 fail=0 mounts=() start=$(date +%s)

say() { echo "# fresh-machine: $*"; }
abort() { # abort WHAT DIAGNOSTIC...: a failed test line and the summary
	echo "not ok - fresh-machine/$1"
	shift
	for d in "$@"; do echo "$d" | sed 's/^/# /'; done
	echo "$pass passed, $((fail + 1)) failed"
	exit 1
}

# chroot_pids: processes whose root directory is the chroot (daemons a package
# script may have started; the make itself once timeout has killed it).
chroot_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
	done
}

release() { # kill what runs in the chroot, unmount what we mounted into it
	local pids i m
	pids=$(chroot_pids)
	if [ -n "$pids" ]; then
		say "killing processes left in the chroot: $(echo $pids)"
		kill $pids 2>/dev/null
		for i in $(seq 50); do [ -z "$(chroot_pids)" ] && break; sleep 0.2; done
		pids=$(chroot_pids)
		[ -z "$pids" ] || kill -9 $pids 2>/dev/null
	fi
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		m=${mounts[i]}
		timeout 30 umount "$m" || { say "umount $m failed, detaching it"; umount -l "$m"; }
	done
	mounts=()
}
trap release EXIT

# remove_root: deletes the previous run's chroot, never through a mount in it.
remove_root() {
	[ -e "$root" ] || return 0
	if awk -v r="$root/" 'index($2 "/", r) == 1 {f = 1} END {exit !f}' /proc/mounts; then
		abort setup "$root still has mounts in it, not removing it:" \
			"$(awk -v r="$root/" 'index($2 "/", r) == 1 {print $2}' /proc/mounts)"
	fi
	rm -rf --one-file-system "$root"
}

[ "$(id -u)" = 0 ] || abort setup "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || abort setup "needs debootstrap (make deps)"
mkdir -p "$cache/debs"
exec 9>"$cache/lock"
flock -w 3600 9 || abort setup "another fresh-machine run held $cache/lock for an hour"

t0=$(date +%s)
if [ ! -f "$base/.complete" ]; then
	mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
	[ -n "$mirror" ] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
	[ -n "$mirror" ] || abort setup "no Debian mirror found in apt's sources"
	rm -rf --one-file-system "$cache"/base-*
	say "debootstrap bookworm minbase from $mirror (once)"
	timeout -k 10 1800 debootstrap --variant=minbase --include="$include" bookworm "$base" "$mirror" \
		>"$cache/debootstrap.log" 2>&1 ||
		abort debootstrap "debootstrap failed or ran over 30 min ($cache/debootstrap.log):" \
			"$(tail -n 20 "$cache/debootstrap.log")"
	rm -rf "$base"/var/cache/apt/archives/*.deb "$base"/var/lib/apt/lists/*
	touch "$base/.complete"
	say "debootstrap: $(($(date +%s) - t0)) s"
fi

t0=$(date +%s)
remove_root
cp -a "$base" "$root" && rm "$root/.complete" || abort setup "cannot copy $base to $root"
# apt's sources as this Debian 12 machine has them; no service starts in a chroot
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
	cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
	rm -f "$root/etc/apt/sources.list"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
mkdir -p "$root/root/ext4cell"
git -C "$repo" archive HEAD | tar -x -C "$root/root/ext4cell" ||
	abort setup "git archive HEAD of $repo failed"
mount -t proc proc "$root/proc" && mounts+=("$root/proc") || abort setup "cannot mount /proc in $root"
mount --bind "$cache/debs" "$root/var/cache/apt/archives" && mounts+=("$root/var/cache/apt/archives") ||
	abort setup "cannot bind $cache/debs into $root"
say "pristine chroot with HEAD $(git -C "$repo" rev-parse --short HEAD): $(($(date +%s) - t0)) s"

# in_chroot NAME COMMAND: one test line for COMMAND, run by root in the
# repository inside the chroot with a login's plain environment, 40 min at most.
n=0
in_chroot() {
	local name="fresh-machine/$1" log t0 rc
	n=$((n + 1))
	log=$cache/make-$n.log
	t0=$(date +%s)
	timeout -k 10 2400 chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "cd /root/ext4cell && $2" </dev/null >"$log" 2>&1
	rc=$?
	say "$1: $(($(date +%s) - t0)) s (status $rc)"
	if [ $rc = 0 ]; then
		echo "ok - $name"
		pass=$((pass + 1))
		return
	fi
	echo "not ok - $name"
	[ $rc = 124 ] && echo "# it ran over 40 min and was killed"
	echo "# '$2' failed with status $rc on a fresh Debian 12; end of $log:"
	tail -n 30 "$log" | sed 's/^/# /'
	fail=$((fail + 1))
}
in_chroot "make deps all" "make deps all"
in_chroot "make deps all BUILD=build/test SANITIZE=1" "make deps all BUILD=build/test SANITIZE=1"

release
if [ $fail = 0 ]; then remove_root; else say "the chroot is left in $root for inspection"; fi
say "total: $(($(date +%s) - start)) s"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
