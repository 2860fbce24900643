#!/bin/bash
# Special files: fifos (mkfifo, mknod p), character and block devices (root only: EPERM
# otherwise), sockets (mknod s and a bound AF_UNIX socket), each stored and listed with its
# type and rdev (major:minor, also past 255), and usable: a fifo carries data.
set -u
cd "$1" || exit 1
umask 022
h="$POSIX_HELPER"
mkfifo fifo1; $h mknod fifo2 p 0 0
$h mknod null c 1 3; $h mknod loop b 7 0; $h mknod bigdev c 259 65537; $h mknod sock s 0 0
$h mknod plain f 0 0
$h bind bound.sock
$h stat fifo1 fifo2 null loop bigdev sock plain bound.sock 2>&1
stat -c '%F %t:%T %n' fifo1 null loop bigdev bound.sock 2>&1 | sed 's/^.*: //'
ls -l | awk 'NR > 1 {print substr($1, 1, 1), $NF}'
find . -mindepth 1 -printf '%y %p\n' | sort
( echo through-the-fifo > fifo1 ) & cat fifo1; wait
[ -c null ] && echo "null-char $(head -c 4 null | wc -c)"
mkdir d; mv fifo2 d/; $h stat d/fifo2; ln loop loop2 2>/dev/null && $h stat loop2
rm -f fifo1 d/fifo2 null loop loop2 bigdev sock plain bound.sock; rmdir d; ls -A
