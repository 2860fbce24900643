#!/bin/bash
# Concurrent writers: O_APPEND from two processes, two descriptors at different offsets, read while open.
set -u
cd "$1" || exit 1
( for i in $(seq 1 300); do echo "a$i" >> log; done ) &
( for i in $(seq 1 300); do echo "b$i" >> log; done ) &
wait
wc -l < log
grep -c '^a' log; grep -c '^b' log
sort log | md5sum
python3 - <<'PY'
import os
fd1 = os.open("shared", os.O_RDWR | os.O_CREAT, 0o644)
fd2 = os.open("shared", os.O_RDWR)
os.pwrite(fd1, b"A" * 10, 0)
os.pwrite(fd2, b"B" * 10, 5)
os.pwrite(fd1, b"C" * 3, 20)
print(os.pread(fd2, 100, 0))
os.ftruncate(fd2, 12)
print(os.pread(fd1, 100, 0), os.fstat(fd1).st_size)
os.close(fd1); os.close(fd2)
r = os.open("stream", os.O_RDONLY | os.O_CREAT, 0o644)
w = os.open("stream", os.O_WRONLY | os.O_APPEND)
for i in range(5):
    os.write(w, b"line%d\n" % i)
    print(os.read(r, 100))
os.close(r); os.close(w)
PY
