#!/bin/bash
# tests/deps.sh: install every Debian package ext4cell needs to build, test and
# run its demo (apt only; called by `make deps`). Idempotent and quiet when done.
set -euo pipefail
pkgs=(
	build-essential pkg-config flex bison bc libelf-dev libssl-dev cpio kmod xz-utils lz4
	qemu-system-x86 qemu-utils
	libfuse3-dev fuse3 fuse2fs libext2fs-dev e2fsprogs comerr-dev libmount-dev libblkid-dev
	libseccomp-dev seccomp libcap-dev libsystemd-dev
	debootstrap attr acl util-linux procps systemd valgrind dmsetup
	sparse fio
	clang-14 libclang-rt-14-dev
	xfsprogs xfslibs-dev libtool autoconf automake uuid-dev libattr1-dev libacl1-dev libaio-dev
	liburing-dev libgdbm-dev libinih-dev libicu-dev gawk psmisc dbench quota
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	apt-cache policy linux-source-6.12 | grep -q 'Candidate: [0-9]' || apt-get update -q
fi
echo "deps: all ${#pkgs[@]} packages present"
