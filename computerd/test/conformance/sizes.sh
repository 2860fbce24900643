#!/bin/bash
# Sizes and offsets: sparse writes past 2 GiB, 4 GiB and 16 GiB (no EFBIG), reads across
# them, truncate up and down (also of a file with data past 4 GiB), O_APPEND after a seek,
# O_EXCL (also on a dangling symlink), O_TRUNC, O_NOFOLLOW (ELOOP on a symlink), symlink
# loops, ENAMETOOLONG from 256 bytes in one name (255 is fine), ENOTDIR, EISDIR.
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
G=$((1024 * 1024 * 1024))
: > big
$h pwrite big $((2 * G - 2)) across2g; $h pwrite big $((4 * G - 3)) across4g; $h pwrite big $((16 * G + 1)) past16g
stat -c '%s' big
dd if=big bs=1 skip=$((2 * G - 2)) count=8 status=none; echo
dd if=big bs=1 skip=$((4 * G - 3)) count=8 status=none; echo
dd if=big bs=1 skip=$((16 * G + 1)) count=10 status=none | od -An -c
dd if=big bs=4096 skip=$((3 * G / 4096)) count=2 status=none | od -An -tx1 | sort -u
$h truncate big $((4 * G + 2)); stat -c '%s' big; dd if=big bs=1 skip=$((4 * G - 3)) count=8 status=none | od -An -c
$h truncate big $((5 * G)); dd if=big bs=1 skip=$((4 * G - 3)) count=8 status=none | od -An -c
$h truncate big 3; stat -c '%s' big; od -An -c big
$h truncate big $((3 * G)); stat -c '%s' big; cmp -n 4096 big /dev/zero && echo zero-after-shrink-and-grow
python3 - <<'PY'
import os
fd = os.open("big", os.O_RDWR)
os.lseek(fd, 5 * 1024**3, os.SEEK_SET)
os.write(fd, b"tail")
print("size", os.fstat(fd).st_size)
os.ftruncate(fd, 10)
print("size", os.fstat(fd).st_size)
os.close(fd)
PY
rm big
echo "-- O_APPEND, O_EXCL, O_TRUNC"
python3 - <<'PY'
import os
fd = os.open("ap", os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
os.write(fd, b"one")
os.lseek(fd, 0, os.SEEK_SET)
os.write(fd, b"two")
os.pwrite(fd, b"X", 0)  # Linux: pwrite on O_APPEND appends
os.close(fd)
print(open("ap").read())
PY
$h open ap wronly,creat,excl; $h open fresh wronly,creat,excl; $h open fresh rdonly,creat,excl
ln -s nowhere dangling; $h open dangling wronly,creat,excl; ls nowhere 2>/dev/null || echo excl-did-not-follow
$h open dangling wronly,creat; ls nowhere && rm nowhere
$h open ap wronly,trunc; stat -c '%s' ap; echo again > ap; $h open ap rdonly,trunc; stat -c '%s' ap
echo "-- O_NOFOLLOW, loops, names"
mkdir dir; ln -s ap lnk; ln -s dir dlnk; ln -s loop1 loop2; ln -s loop2 loop1
$h open ap rdonly,nofollow; $h open lnk rdonly,nofollow; $h open dlnk rdonly,nofollow,directory
$h open dlnk/../ap rdonly,nofollow; $h open loop1 rdonly; $h open loop1 rdonly,nofollow; $h stat loop1/x
$h open lnk path,nofollow
n255=$(printf 'n%.0s' $(seq 255)); n256=$(printf 'n%.0s' $(seq 256))
$h open "$n255" wronly,creat; $h open "$n256" wronly,creat; $h mkdir "$n256" 755; $h symlink x "$n256"
$h rename "$n255" "$n256"; $h link "$n255" "$n256"; $h stat "$n256/x"; ls | awk '{print length($0)}' | sort -n | tail -1
$h open ap/x rdonly; $h open dir wronly; $h open ap rdonly,directory; $h mkdir ap/x 755; $h unlink dir; $h rmdir ap
