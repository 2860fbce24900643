#!/bin/bash
# utimensat/futimens with nanoseconds, UTIME_NOW and UTIME_OMIT on either side, times before
# 1970 and past 2038 (and past 2^32 s), on files, directories and symlinks (nofollow); and
# which operations advance atime/mtime/ctime of the file and of its directory. Read-driven
# atime is atime.sh's (relatime).
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
echo x > f; mkdir d; ln -s f sl
$h utimensat f 1.000000001 2.999999999; $h times f | cut -d' ' -f1-3
$h futimens f 1234567890.123456789 omit; $h times f | cut -d' ' -f1-3
$h futimens f omit 1234567891.5; $h times f | cut -d' ' -f1-3
$h utimensat f -1 -86400.25; $h times f | cut -d' ' -f1-3
$h utimensat f 2147483648.1 4294967296.123456789; $h times f | cut -d' ' -f1-3
$h utimensat f -2208988800.999999999 16725225600.000000007; $h times f | cut -d' ' -f1-3
$h utimensat d 5.5 6.6; $h utimensat sl 7.7 8.8 nofollow; $h times d sl f | cut -d' ' -f1-3
$h utimensat f 1 1000000000; $h utimensat f 1 1000000000; $h times f | cut -d' ' -f1-3
$h utimensat f 1.1000000000 2; $h utimensat f 1 1.-5
now=$(date +%s); $h utimensat f now omit
$h times f | awk -v now="$now" '{split($2, a, "[=.]"); print "atime now:", (a[2] >= now - 2 && a[2] <= now + 2), $3}'
atime=$($h times f | cut -d' ' -f2); $h futimens f omit now
$h times f | awk -v now="$now" -v atime="$atime" '{split($3, m, "[=.]"); print "mtime now:", (m[2] >= now - 2 && m[2] <= now + 2), "atime kept:", ($2 == atime)}'
echo "-- what each operation advances (file, then its directory)"
snap() { $h times "$@" | sed 's/^[^ ]* //'; }
check() { # check LABEL COMMAND...: runs the command, prints which times moved
  local label=$1; shift
  $h utimensat t 100 200 >/dev/null; $h utimensat . 100 200 >/dev/null
  local before dir_before; before=$(snap t); dir_before=$(snap .); sleep 0.05
  "$@" >/dev/null 2>&1
  local after dir_after; after=$(snap t); dir_after=$(snap .)
  printf '%-10s file:' "$label"
  for i in 1 2 3; do [ "$(echo "$before" | cut -d' ' -f$i)" != "$(echo "$after" | cut -d' ' -f$i)" ] && printf ' %s' "$(echo "$after" | cut -d' ' -f$i | cut -c1)"; done
  printf '  dir:'
  for i in 1 2 3; do [ "$(echo "$dir_before" | cut -d' ' -f$i)" != "$(echo "$dir_after" | cut -d' ' -f$i)" ] && printf ' %s' "$(echo "$dir_after" | cut -d' ' -f$i | cut -c1)"; done
  echo
}
echo t > t
check write sh -c 'echo more >> t'
check pwrite "$h" pwrite t 1 X
check truncate truncate -s 1 t
check trunc-same truncate -s 1 t
check o_trunc sh -c ': > t'
check o_trunc-0 sh -c ': > t'
check chmod chmod 640 t
check chown "$h" chown t -1 "$(id -g)"
check setxattr "$h" setxattr t user.x y
check rmxattr "$h" removexattr t user.x
check link ln t t2
check unlink rm t2
check rename sh -c 'mv t t3 && mv t3 t'
check mkdir mkdir sub
check rmdir rmdir sub
check create touch new
check symlink ln -s t lnk
check utime-now touch t
