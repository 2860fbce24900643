#!/bin/bash
# Sparse files: holes read as zeros, size without allocation, writes past the end.
set -u
cd "$1" || exit 1
truncate -s 1G big
stat -c '%s' big
[ "$(stat -c '%b' big)" -lt 1000 ] && echo sparse
dd if=big bs=4096 skip=1000 count=1 status=none | od -An -tx1 | sort -u
printf 'mid' | dd of=big bs=1 seek=$((512 * 1024 * 1024)) conv=notrunc status=none
dd if=big bs=1 skip=$((512 * 1024 * 1024 - 2)) count=7 status=none | od -An -c
printf 'end' | dd of=hole bs=1 seek=5000000 status=none
stat -c '%s' hole
cmp -n 5000000 hole /dev/zero && echo zeros-before
tail -c 3 hole; echo
truncate -s 10 hole
od -An -c hole
