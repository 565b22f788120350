#!/bin/bash
# fuzz/seeds.sh OUT MKBAD: the seed corpora of the fuzz targets, made fresh by
# mke2fs and debugfs (never committed):
#   OUT/image/    small ext2/ext3/ext4 images (1 KiB and 4 KiB blocks, inline
#                 data, journal, 64bit + metadata_csum, bigalloc, block maps,
#                 several block groups, htree) with files, directories,
#                 symlinks and xattrs; three whose journal needs replay;
#                 tests/images/mkbad's hostile ones
#   OUT/journal/  the journals of the replay images (fuzz/journal.c writes
#                 them over the journal of OUT/journal-base, one of them)
#   OUT/proto/    one message of each type (fuzz/proto.c's input format)
set -euo pipefail
out=$1 mkbad=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out/image" "$out/journal" "$out/proto"

# the tree every image starts from
tree=$tmp/tree
mkdir -p "$tree/dir/sub" "$tree/many"
head -c 3000 /dev/urandom >"$tree/small"
head -c 40000 /dev/urandom >"$tree/dir/sub/big"
: >"$tree/empty"
printf 'x' | dd of="$tree/sparse" bs=1 seek=300000 conv=notrunc status=none
ln -s small "$tree/fast-link"
ln -s "/$(printf 'long%.0s' $(seq 40))" "$tree/dir/slow-link"
mkfifo "$tree/fifo"
for i in $(seq 60); do : >"$tree/many/entry-with-a-longer-name-$i"; done

# mk NAME SIZE MKE2FS-ARGS...: an image of the tree with xattrs on a few inodes
mk() {
	local img=$out/image/$1 size=$2
	shift 2
	truncate -s "$size" "$img"
	mke2fs -F -q -N 128 -d "$tree" "$@" "$img" >/dev/null
	debugfs -w -f - "$img" >/dev/null 2>&1 <<-EOF
		ea_set /small user.short hello
		ea_set /dir user.dir 0123456789abcdef0123456789abcdef
		ea_set / trusted.root value
		ea_set -f /etc/hostname /dir/sub/big user.from-file
	EOF
	e2fsck -fyD "$img" >/dev/null 2>&1 || [ $? -le 2 ]
}
mk ext2-1k 512K -t ext2 -b 1024
mk ext3-1k 2M -t ext3 -b 1024
# without metadata_csum but one: a mutated checksummed structure is only refused
mk ext4-1k 512K -t ext4 -b 1024 -O ^has_journal,^metadata_csum
mk ext4-4k 1M -t ext4 -b 4096 -O ^has_journal,^metadata_csum
mk ext4-inline 512K -t ext4 -b 1024 -I 256 -O inline_data,^has_journal,^metadata_csum
mk ext4-csum64 512K -t ext4 -b 1024 -O 64bit,metadata_csum,^has_journal
mk ext4-noextent 512K -t ext4 -b 1024 -O ^metadata_csum,^has_journal,^extent,^64bit
mk ext4-bigalloc 1M -t ext4 -b 1024 -C 4096 -O bigalloc,^has_journal,^metadata_csum
mk ext4-journal 2M -t ext4 -b 1024 -O ^metadata_csum
# four block groups (flex_bg: their bitmaps and inode tables in the first)
mk ext4-groups 1M -t ext4 -b 1024 -g 256 -O ^has_journal,^metadata_csum
mk ext4-journal-csum 2M -t ext4 -b 1024

# replay NAME FROM: FROM with committed transactions left in its journal
# (the image needs recovery), and that journal as a seed of fuzz/journal
replay() {
	cp "$out/image/$2" "$out/image/$1"
	debugfs -w -f - "$out/image/$1" >/dev/null 2>&1 <<-EOF
		jo
		jw -b 333,334 $tmp/blocks
		jw -r 335
		jc
		EOF
	dumpe2fs -h "$out/image/$1" 2>/dev/null | grep -q needs_recovery
	debugfs -R "dump <8> $out/journal/$1" "$out/image/$1" >/dev/null 2>&1
}
head -c 2048 /dev/urandom >"$tmp/blocks"
replay ext4-replay ext4-journal-csum
replay ext4-replay-nocsum ext4-journal
replay ext3-replay ext3-1k
# fuzz/journal writes its inputs over this image's journal (checksums v3)
cp "$out/image/ext4-replay" "$out/journal-base"

# the hostile images: mkbad's cases on the base it expects
base=$tmp/base
truncate -s 1M "$base"
mke2fs -F -q -t ext4 -b 1024 -O ^has_journal,^metadata_csum "$base"
debugfs -w -f - "$base" >/dev/null 2>&1 <<-EOF
	write $tree/dir/sub/big file
	mkdir dir
	write $tree/small dir/x
	symlink link /$(printf 'a%.0s' $(seq 300))
	EOF
for c in $("$mkbad" --list); do
	cp "$base" "$out/image/bad-$c"
	"$mkbad" "$c" "$out/image/bad-$c" 2>/dev/null || rm -f "$out/image/bad-$c"
done

# proto: a first byte choosing the receiver (0 server, 1 helper), then a packet
printf '\x00E4CP\x01\x00\x01\x00\x1c\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x0b\x00\x09\x00errors=cont/dev/sda1' >"$out/proto/request"
printf '\x01E4CP\x01\x00\x02\x00\x0e\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00ro' >"$out/proto/verdict"
printf '\x00E4CP\x01\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$out/proto/serve"
