#!/bin/bash
# Permission bits, ownership, times (second and millisecond precision) and xattrs.
set -u
cd "$1" || exit 1
umask 022
echo x > f; mkdir d
stat -c '%a %A' f d
chmod 600 f; stat -c '%a' f
chmod 4755 f; stat -c '%a %A' f
chmod 1777 d; stat -c '%a %A' d
chmod u-w,g+w f; stat -c '%a' f
chown 1000:2000 f; stat -c '%u:%g' f
chown 0:0 f; stat -c '%u:%g' f
chmod 755 f; chown 1234 f; stat -c '%u %a' f
touch -d '2001-02-03 04:05:06' f
stat -c '%y|%x' f | sed 's/ +0000//g'
touch -d '2020-06-07 08:09:10.123' f
stat -c '%y|%x' f | sed 's/ +0000//g'
touch -h -d '2002-02-02 02:02:02' d
stat -c '%y' d | sed 's/ +0000//'
ln -s f sl
touch -h -d '2003-03-03 03:03:03' sl
stat -c '%y' sl | sed 's/ +0000//'
stat -c '%y' f | sed 's/ +0000//'
before=$(stat -c %Y f); sleep 1; echo more >> f
[ "$(stat -c %Y f)" -gt "$before" ] && echo mtime-advanced
python3 - <<'PY'
import os
os.setxattr("f", "user.color", b"blue")
os.setxattr("f", "user.size", b"\x00\x01\x02")
print(sorted(os.listxattr("f")))
print(os.getxattr("f", "user.color"), os.getxattr("f", "user.size"))
try:
    os.getxattr("f", "user.none")
except OSError as e:
    print("missing:", e.errno)
try:
    os.setxattr("f", "user.color", b"red", os.XATTR_CREATE)
except OSError as e:
    print("create existing:", e.errno)
os.setxattr("f", "user.color", b"red", os.XATTR_REPLACE)
print(os.getxattr("f", "user.color"))
os.removexattr("f", "user.color")
print(sorted(os.listxattr("f")))
PY
mkfifo fifo; stat -c '%F %a' fifo
