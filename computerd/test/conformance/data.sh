#!/bin/bash
# Larger data: multi-chunk files, copies, overwrite in the middle, shrink and grow, mmap, executables.
set -u
cd "$1" || exit 1
python3 -c "
import sys
block = bytes(range(256)) * 4096
for i in range(20):
    sys.stdout.buffer.write(bytes([i]) + block[1:])
" > big
stat -c '%s' big; md5sum < big
cp big copy; cmp big copy && echo copy-equal
dd if=/dev/zero of=big bs=1000 seek=3000 count=2000 conv=notrunc status=none
md5sum < big
truncate -s 3000000 big; md5sum < big
truncate -s 9000000 big; md5sum < big
cat big big > twice; stat -c '%s' twice; md5sum < twice
dd if=big of=part bs=65536 skip=7 count=11 status=none; md5sum < part
python3 - <<'PY'
import mmap, os
with open("mm", "wb") as f:
    f.write(b"\0" * 10000)
with open("mm", "r+b") as f:
    m = mmap.mmap(f.fileno(), 0)
    m[100:105] = b"hello"
    m[9990:10000] = b"0123456789"
    m.flush()
    m.close()
with open("mm", "rb") as f:
    data = f.read()
print(len(data), data[100:105], data[9990:])
PY
printf '#!/bin/sh\necho "script ran with $1"\n' > run.sh
chmod +x run.sh; ./run.sh arg
cp "$(type -P true)" mytrue && ./mytrue && echo binary-ran
