#!/bin/bash
# user.* extended attributes: set, get, list, replace, remove on the caller's files and
# directories (binary and empty values, many names, XATTR_CREATE/REPLACE, ENODATA, ERANGE),
# kept through rename and hard links, gone with the file; refused on others' files
# (EACCES without write permission, EPERM in a sticky directory) and on symlinks (EPERM).
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
echo x > f; mkdir d; ln -s f sl
$h setxattr f user.a 1; $h setxattr f user.b ""; $h setxattr d user.dir yes; $h setxattr sl user.l no
$h listxattr f; $h listxattr d; $h listxattr sl; $h getxattr f user.a; $h getxattr f user.missing
$h removexattr f user.missing; $h removexattr f user.b; $h listxattr f; $h setxattr f notanamespace.x 1
python3 - <<'PY'
import errno, os
def attempt(label, fn):
    try:
        out = fn()
        print(label, "ok" if out is None else out)
    except OSError as e:
        print(label, errno.errorcode[e.errno])
attempt("create existing", lambda: os.setxattr("f", "user.a", b"2", os.XATTR_CREATE))
attempt("replace missing", lambda: os.setxattr("f", "user.new", b"2", os.XATTR_REPLACE))
attempt("replace", lambda: os.setxattr("f", "user.a", b"\x00\xff binary \x00", os.XATTR_REPLACE))
attempt("get", lambda: os.getxattr("f", "user.a"))
for i in range(40):
    os.setxattr("f", "user.many%02d" % i, b"v" * i)
attempt("count", lambda: len(os.listxattr("f")))
attempt("big value", lambda: os.setxattr("f", "user.big", b"z" * 60000))
attempt("big len", lambda: len(os.getxattr("f", "user.big")))
fd = os.open("f", os.O_RDONLY)
attempt("fgetxattr", lambda: os.getxattr(fd, "user.many07"))
attempt("fremovexattr", lambda: os.removexattr(fd, "user.many07"))
os.close(fd)
attempt("long name", lambda: os.setxattr("f", "user." + "n" * 251, b"v"))
attempt("too long name", lambda: os.setxattr("f", "user." + "n" * 256, b"v"))
PY
$h getxattr f user.many03; ln f hard; mv f renamed; $h getxattr hard user.many03; $h getxattr renamed user.a >/dev/null && echo kept
rm renamed hard; echo x > f; $h listxattr f
echo "-- file capabilities: stored for root only, dropped by a write"
python3 - <<'PY'
import os, struct
open("capped", "w").write("x")
try:
    os.setxattr("capped", "security.capability", struct.pack("<IIIII", 0x02000001, 1 << 13, 0, 0, 0))
    print("capability set:", "security.capability" in os.listxattr("capped"))
except OSError as e:
    print("capability", os.strerror(e.errno))
with open("capped", "a") as f:
    f.write("more")
print("after a write:", "security.capability" in os.listxattr("capped"))
PY
echo "-- others' files"
cd "$OTHERS" || exit 1
$h getxattr rootfile user.none; $h setxattr rootfile user.k v; $h removexattr rootfile user.k
$h setxattr writable user.k v; $h getxattr writable user.k; $h removexattr writable user.k
$h setxattr sticky/theirs user.k v; $h setxattr secret user.k v; $h listxattr secret
