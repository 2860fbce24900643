#!/bin/bash
# Regular files: create, read, write, append, overwrite, truncate, positioned writes.
set -u
cd "$1" || exit 1
echo hello > a
cat a
echo world >> a
cat a
printf 'xyz' > a
cat a; echo
stat -c '%s %F %a' a
: > empty
stat -c '%s %F' empty
printf '0123456789' > t
truncate -s 4 t; cat t; echo
truncate -s 8 t; od -An -c t
printf 'AB' | dd of=t bs=1 seek=6 conv=notrunc status=none
od -An -c t
printf 'Z' | dd of=t bs=1 seek=20 conv=notrunc status=none
stat -c '%s' t; od -An -c t
head -c 3 t; echo
tail -c 2 t | od -An -c
cp t t2 && cmp t t2 && echo copy-equal
seq 1 5000 > lines
wc -l < lines; wc -c < lines; md5sum < lines
sed -n '4000,4002p' lines
exec 3<> rw
printf 'abcdef' >&3
exec 3>&-
cat rw; echo
echo > a
stat -c '%s' a
cat nonexistent 2>&1
echo "exit: $?"
