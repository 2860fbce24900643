#!/bin/bash
# POSIX details agents' tools rely on: directory nlink, ctime on link/rename, device nodes and
# fifos, offsets past 4 GiB, O_NOFOLLOW, ENAMETOOLONG, rename into the own subtree, O_APPEND,
# O_EXCL, setuid cleared by chown and by a non-owner's write, sticky directories, times before 1970.
# The parts that act as two other users need root (ownership.sh and permissions.sh cover
# them for an unprivileged caller).
set -u
cd "$1" || exit 1
as() { # as UID COMMAND: runs COMMAND as UID when root
  if [ "$(id -u)" = 0 ]; then setpriv --reuid="$1" --regid="$1" --clear-groups -- sh -c "$2"; else echo "(root only)"; fi
}
mkdir d d/a d/b; stat -c 'dir-nlink %h' d
echo x > f; c0=$(stat -c %Z f); sleep 1.1; ln f g; c1=$(stat -c %Z f); [ "$c1" -gt "$c0" ] && echo ctime-link || echo NO-ctime-link
sleep 1.1; mv g h; c2=$(stat -c %Z h); [ "$c2" -gt "$c1" ] && echo ctime-rename || echo NO-ctime-rename
mknod cdev c 1 3 && stat -c '%F %t:%T' cdev
mkfifo fifo; stat -c '%F' fifo
truncate -s 5G sparse; stat -c '%s' sparse; dd if=/dev/zero of=sparse bs=1 count=1 seek=$((4*1024*1024*1024+5)) conv=notrunc 2>/dev/null; stat -c %s sparse
python3 - <<'PY'
import os, errno
try: os.open("h", os.O_RDONLY|os.O_NOFOLLOW); print("nofollow-file-ok")
except OSError as e: print(errno.errorcode[e.errno])
os.symlink("h","sl")
try: os.open("sl", os.O_RDONLY|os.O_NOFOLLOW)
except OSError as e: print("nofollow", errno.errorcode[e.errno])
for n in (255,256):
  try: open("a"*n,"w").close(); print(n,"ok")
  except OSError as e: print(n, errno.errorcode[e.errno])
try: os.rename("d","d/a/x")
except OSError as e: print("rename-into-self", errno.errorcode[e.errno])
fd=os.open("o", os.O_CREAT|os.O_WRONLY|os.O_APPEND, 0o644); os.write(fd,b"ab"); os.lseek(fd,0,0); os.write(fd,b"cd"); os.close(fd); print(open("o").read())
try: os.open("o", os.O_CREAT|os.O_EXCL|os.O_WRONLY)
except OSError as e: print("excl", errno.errorcode[e.errno])
PY
chmod 4755 h; chown 4242 h; stat -c '%a' h
chmod 4777 h; as 4343 'echo y >> h'; stat -c '%a' h
mkdir sd; chmod 1777 sd; as 4242 "touch $PWD/sd/u"; as 4343 "rm -f $PWD/sd/u" 2>&1 | sed 's/.*: //'
as 4343 "mkdir $PWD/d/nope" 2>&1 | sed 's/.*: //'
touch -d '1900-01-01' f; stat -c %y f
