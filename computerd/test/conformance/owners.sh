#!/bin/bash
# Ownership of new files and the kernel's permission checks for an unprivileged
# caller (uid/gid 4242 with group 4343: via setpriv when the script runs as root, else the
# caller itself): files, directories, symlinks and fifos belong to the caller, a setgid
# directory passes on its group (and setgid to subdirectories; a new file keeps setgid only
# for a member of that group), chown/chmod by non-owners fail.
set -u
cd "$1" || exit 1
umask 022
as_user() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=4242 --regid=4242 --groups=4343 -- bash -c "$1"; else bash -c "$1"; fi 2>&1 |
    sed "s|$PWD/||g"
}
chmod 1777 .
mkdir sg && chgrp 4343 sg && chmod 2777 sg
echo secret > private && chmod 600 private
as_user 'echo hi > mine; mkdir mydir; ln -s mine myln; mkfifo myfifo; touch sg/inherited; mkdir sg/sub'
stat -c '%u:%g %a %F %n' mine mydir myln myfifo sg/inherited sg/sub
as_user 'cat private || echo read-denied'
as_user 'chown 0 mine || echo chown-denied'
as_user 'chmod 777 private || echo chmod-denied'
as_user 'rm private || echo sticky-denied'
as_user 'chmod 640 mine && stat -c "%a" mine'
as_user 'echo more >> mine && cat mine'
chown 4242:4242 private
as_user 'cat private'
as_user 'touch -d "2001-01-01 00:00:00" mine && stat -c "%y" mine'
as_user 'touch -d "2001-01-01 00:00:00" private 2>/dev/null; chmod 600 private; touch -d "2002-02-02" sg 2>&1 >/dev/null | head -1 | sed "s/.*: //"'
echo "-- new nodes in a setgid directory of a group the caller may not be in"
cd "$OTHERS" || exit 1
as_user '"$POSIX_HELPER" open setgid/f wronly,creat 2755; "$POSIX_HELPER" mkdir setgid/d 2755; "$POSIX_HELPER" mkdir setgid/plain 755'
"$POSIX_HELPER" stat setgid/f setgid/d setgid/plain
