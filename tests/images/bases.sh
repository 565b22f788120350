#!/bin/bash
# tests/images/bases.sh: the base images the crafted-image generator
# (craft) damages, in DIR: ext4 with metadata checksums (ext4-csum.img),
# ext4 without (ext4.img: damage a checksum would catch reaches the parsers)
# and ext3 (block-mapped files). Each holds /file (50 000 bytes), /sparse (40
# separate 4 KiB pieces: an extent tree with a leaf block), /dir (5 files),
# /htree (400 entries, indexed by e2fsck -D), a fast and a slow symlink and
# /xfile with an xattr in the inode and one in a block; e2fsck -fn clean.
# usage: bases.sh DIR
set -eu
dir=$1 stage=$1/stage
mkdir -p "$stage/dir" "$stage/htree"
head -c 50000 /dev/urandom >"$stage/file"
for i in $(seq 0 39); do
	head -c 4096 /dev/urandom | dd of="$stage/sparse" bs=4096 seek=$((i * 16)) conv=notrunc status=none
done
for i in 1 2 3 4 5; do echo "file $i" >"$stage/dir/f$i"; done
for i in $(seq 400); do : >"$stage/htree/entry-with-a-long-name-number-$i"; done
ln -s target "$stage/fast"
ln -s "/$(printf 'a%.0s' $(seq 300))" "$stage/slow"
echo xattrs >"$stage/xfile"
head -c 600 /dev/zero | tr '\0' v >"$dir/bigvalue"
for b in ext4-csum:ext4:metadata_csum ext4:ext4:^metadata_csum ext3:ext3:; do
	IFS=: read -r name type feature <<<"$b"
	img=$dir/$name.img
	rm -f "$img"
	truncate -s 32M "$img"
	mkfs -t "$type" -q -F -b 1024 -I 256 ${feature:+-O "$feature"} -d "$stage" "$img" >/dev/null
	debugfs -w -f - "$img" >/dev/null 2>&1 <<-CMDS
		ea_set /xfile user.small tiny
		ea_set -f $dir/bigvalue /xfile user.big
	CMDS
	e2fsck -fyD "$img" >/dev/null 2>&1 || [ $? = 1 ]
	e2fsck -fn "$img" >/dev/null 2>&1 || { echo "bases.sh: $img is not e2fsck-clean" >&2; exit 1; }
done
rm -rf "$stage" "$dir/bigvalue"
