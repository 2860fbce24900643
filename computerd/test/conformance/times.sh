#!/bin/bash
# Timestamps to the letter: nanoseconds, `touch -m`/`touch -a` (UTIME_OMIT for the other
# time), UTIME_NOW, `cp -p`, times before 1970 and after 2038.
set -u
cd "$1" || exit 1
echo x > f
touch -d '2001-02-03 04:05:06.123456789' f
stat -c '%y|%x' f | sed 's/ +0000//g'
touch -m -d '2010-01-01 00:00:00.987654321' f
stat -c '%y|%x' f | sed 's/ +0000//g'
touch -a -d '2011-11-11 11:11:11.000000001' f
stat -c '%y|%x' f | sed 's/ +0000//g'
cp -p f g
stat -c '%y|%x' g | sed 's/ +0000//g'
touch -d '1969-07-20 20:17:40.5' f
stat -c '%y' f | sed 's/ +0000//'
touch -d '2100-01-01 00:00:00.25' f
stat -c '%y' f | sed 's/ +0000//'
python3 - <<'PY'
import os, time
os.utime("g", ns=(1_000_000_001, 2_000_000_002))
st = os.stat("g")
print(st.st_atime_ns, st.st_mtime_ns)
# UTIME_NOW for mtime only, atime untouched.
before = time.time_ns()
os.utime("g", ns=(3_000_000_003, st.st_mtime_ns))
os.utime("g")
st = os.stat("g")
print("now-is-recent", st.st_mtime_ns >= before - 2_000_000_000)
PY
mkdir d; touch -d '2005-05-05 05:05:05.555555555' d; stat -c '%y' d | sed 's/ +0000//'
ln -s f sl; touch -h -d '2006-06-06 06:06:06.666666666' sl; stat -c '%y' sl | sed 's/ +0000//'
