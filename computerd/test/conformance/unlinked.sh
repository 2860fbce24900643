#!/bin/bash
# Files used after their last name is gone: fstat shows nlink 0, the descriptor still reads,
# writes, truncates and changes mode, and no stand-in name (such as .fuse_hidden*) shows in
# the directory; also after rename over an open file, and for a directory removed while it
# is the working directory.
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
$h unlinked victim
python3 - <<'PY'
import os
open("target", "w").write("old content")
fd = os.open("target", os.O_RDWR)
open("src", "w").write("new")
os.rename("src", "target")
st = os.fstat(fd)
print("replaced: nlink", st.st_nlink, "size", st.st_size, os.pread(fd, 100, 0))
os.pwrite(fd, b"OLD", 0)
print("still", os.pread(fd, 100, 0), "name shows", open("target").read())
print("names", sorted(os.listdir(".")))
os.close(fd)
a = os.open("two", os.O_RDWR | os.O_CREAT, 0o644)
b = os.open("two", os.O_RDONLY)
os.write(a, b"shared")
os.unlink("two")
print("two fds", os.fstat(a).st_nlink, os.pread(b, 10, 0))
os.close(a)
print("second still reads", os.pread(b, 10, 0), os.fstat(b).st_nlink)
os.close(b)
os.mkdir("gone")
os.chdir("gone")
os.rmdir("../gone")
try:
    open("x", "w")
except OSError as e:
    print("create in removed cwd:", os.strerror(e.errno))
print("cwd nlink", os.stat(".").st_nlink)
os.chdir("..")
print("names", sorted(os.listdir(".")))
PY
ls -A
