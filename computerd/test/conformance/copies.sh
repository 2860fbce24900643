#!/bin/bash
# copy_file_range(2) and cp (which uses it): whole files, ranges at chunk-aligned and odd
# offsets, into the middle and past the end of a file, sparse sources, a source still being
# written, one file onto itself, copies that must not share later changes, a target whose
# pages were cached, and the refusals.
set -u
cd "$1" || exit 1
python3 - <<'EOF'
import errno, hashlib, os

MIB = 1 << 20
block = bytes((i * 31 + (i >> 8)) & 255 for i in range(65521))

def pattern(n, seed):
    data = (block * (n // len(block) + 2))[seed : seed + n]
    return data

def put(name, data):
    with open(name, "wb") as f:
        f.write(data)

def digest(name):
    with open(name, "rb") as f:
        data = f.read()
    return f"{name} {len(data)} {hashlib.md5(data).hexdigest()}"

def copy(src, dst, count, off_in=None, off_out=None, dst_flags=os.O_WRONLY):
    a = os.open(src, os.O_RDONLY)
    b = os.open(dst, dst_flags | os.O_CREAT, 0o644)
    try:
        done = 0
        while done < count:
            n = os.copy_file_range(a, b, count - done,
                                   None if off_in is None else off_in + done,
                                   None if off_out is None else off_out + done)
            if n == 0:
                break
            done += n
        return done
    finally:
        os.close(a)
        os.close(b)

def errname(fn):
    try:
        fn()
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]

put("src", pattern(3 * MIB + 12345, 1))
print("whole", copy("src", "whole", 1 << 40), digest("whole"))

put("mid", pattern(5 * MIB, 2))
print("aligned into the middle", copy("src", "mid", 2 * MIB, MIB, 2 * MIB), digest("mid"))

put("odd", b"")
print("odd offsets", copy("src", "odd", 1500000, 5, 7), digest("odd"))

put("past", b"0123456789")
print("past the end", copy("src", "past", MIB + 3, 0, 4 * MIB), digest("past"))
with open("past", "rb") as f:
    f.seek(10)
    print("gap is zeros", f.read(4 * MIB - 10) == bytes(4 * MIB - 10))

put("tail", pattern(2 * MIB, 3))
print("short last chunk into a longer file", copy("src", "tail", 1 << 30, 3 * MIB, MIB), digest("tail"))

print("count past the source's end", copy("src", "short", 10 * MIB, 3 * MIB), digest("short"))
print("at the end", copy("src", "none", 100, 3 * MIB + 12345, 0), digest("none"))

with open("sparse", "wb") as f:
    f.truncate(3 * MIB)
    f.seek(2 * MIB + 100)
    f.write(b"x")
print("sparse source", copy("sparse", "sparse-copy", 1 << 30), digest("sparse-copy"))

put("self", pattern(MIB + 500, 4))
print("onto itself", copy("self", "self", MIB, 0, 2 * MIB, os.O_RDWR), digest("self"))
print("overlapping", errname(lambda: copy("self", "self", MIB, 0, MIB // 2, os.O_RDWR)), digest("self"))

# A source still open with unwritten-back data.
w = os.open("open-src", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(w, pattern(2 * MIB + 7, 5))
print("source still open", copy("open-src", "open-copy", 1 << 30), digest("open-copy"))
os.write(w, b"more")
os.close(w)
print("later writes stay in the source", digest("open-copy"), digest("open-src"))

# Copies share nothing visible: changing either side leaves the other as it was.
copy("src", "twin", 1 << 40)
with open("src", "r+b") as f:
    f.write(b"changed source")
with open("twin", "r+b") as f:
    f.seek(MIB)
    f.write(b"changed twin")
print("after changes", digest("src"), digest("twin"))

# A target whose pages were read before the copy shows the copied bytes after it.
put("cached", pattern(2 * MIB, 6))
with open("cached", "rb") as f:
    f.read()
copy("whole", "cached", MIB, 0, 0, os.O_WRONLY)
print("cached target", digest("cached"))

os.mkdir("dir")
print("from a directory", errname(lambda: copy("dir", "x", 10)))
r = os.open("src", os.O_RDONLY)
ro = os.open("whole", os.O_RDONLY)
print("into a read-only descriptor", errname(lambda: os.copy_file_range(r, ro, 10)))
wo = os.open("whole", os.O_WRONLY)
print("from a write-only descriptor", errname(lambda: os.copy_file_range(wo, ro, 10)))
for fd in (r, ro, wo):
    os.close(fd)
EOF
cp src cp-copy && cmp src cp-copy && echo cp-equal
stat -c '%n %s' cp-copy whole
