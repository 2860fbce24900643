#!/bin/bash
# Paths longer than PATH_MAX: Linux limits only the string one syscall takes (4,095 bytes),
# so from a subdirectory a relative path of 4,095 bytes reaches further than 4,096 bytes from
# the root. Every kind of create, link and rename works there; a tree 6,000+ bytes below the
# script's directory is built, listed, read, moved and removed; one byte more in one string
# is ENAMETOOLONG, from the kernel.
set -u
cd "$1" || exit 1
mkdir sub && cd sub || exit 1
python3 - <<'PY'
import errno, os
def name(i, fill): return (f"{i:02d}" + fill * 253)
dirs = "/".join(name(i, "d") for i in range(15))  # 15 * 256 - 1 = 3,839 bytes
os.makedirs(dirs)
def at(c): return f"{dirs}/{c * 255}"  # 4,095 bytes
def run(label, fn):
    try:
        fn()
        print(label, "ok")
    except OSError as e:
        print(label, errno.errorcode[e.errno])
def write(path, text):
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    os.write(fd, text.encode())
    os.close(fd)
print("relative path bytes:", len(at("f")))
run("open O_CREAT", lambda: write(at("f"), "deep file"))
run("mkdir", lambda: os.mkdir(at("d")))
run("mkfifo", lambda: os.mkfifo(at("p")))
run("mknod", lambda: os.mknod(at("q"), 0o644 | 0o010000))
run("symlink", lambda: os.symlink("f" * 255, at("s")))
run("link", lambda: os.link(at("f"), at("l")))
run("rename", lambda: os.rename(at("l"), at("r")))
run("rename back", lambda: os.rename(at("r"), at("l")))
run("one byte more", lambda: os.stat(at("f") + "x"))
print("read:", open(at("f")).read(), "| via link:", open(at("s")).read())
print("nlink:", os.stat(at("f")).st_nlink, "| lstat types:", sorted(
    (n[0], oct(os.lstat(f"{dirs}/{n}").st_mode >> 12)) for n in os.listdir(dirs)))
# Further down through a working directory: 25 more levels, 6,400 bytes below it.
os.chdir(dirs)
more = "/".join(name(i, "e") for i in range(15, 25))
os.makedirs(more)
os.chdir(more)
write("g", "deeper")
os.mkdir("h")
os.rename("g", "h/g")
print("deeper:", open("h/g").read(), os.listdir("h"), os.getcwd().endswith(more))
PY
echo "-- from the script's directory"
find . -name g -execdir cat {} \; ; echo
find . | wc -l
find . -type f -execdir wc -c {} + | sed 's/ .*//' | sort -n | tr '\n' ' '; echo
# A deep directory moves as one piece, and a tree that deep is removed as one.
mv "$(ls -d 00*)" moved && ls
rm -r moved 2>&1; echo "rm exit: $?"; ls -A
