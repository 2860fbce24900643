#!/bin/bash
# Permission checks for the caller the runner chose, on others' files in $OTHERS: search
# permission on every directory of a path, read/write/execute bits, directories without
# write permission, sticky directories (unlink, rename, rmdir of others' entries: EPERM),
# owner-only operations (chmod, utimensat with explicit times: EPERM; UTIME_NOW needs
# write permission: EACCES), supplementary groups, exact EACCES versus EPERM.
set -u
cd "$1" || exit 1
umask 022
h="$POSIX_HELPER"
cd "$OTHERS" || exit 1
echo "-- search permission on each directory"
$h stat nosearch/f searchonly/f | sed 's/ size=.*//'
$h open nosearch/f rdonly; $h open searchonly/f rdonly; $h open nosearch rdonly,directory
ls searchonly >/dev/null 2>&1 && echo list-searchonly || echo no-list-searchonly
$h open nosearch/new wronly,creat; $h access nosearch/f f; $h access searchonly/f r
echo "-- read, write, execute bits"
$h open secret rdonly; $h open rootfile rdonly; $h open rootfile wronly; $h open rootfile rdwr
$h open writable wronly; $h open rootfile wronly,trunc; $h truncate rootfile 0; $h truncate writable 3
$h access rootfile rw; $h access writable rw; $h access exec x; $h access noexec x
./exec 2>/dev/null || echo exec-failed; ./noexec 2>/dev/null || echo noexec-refused
cat rootfile writable
echo "-- directories without write permission"
$h open readonly/new wronly,creat; $h mkdir readonly/newdir 755; $h unlink readonly/f
$h rmdir readonly/sub; $h rename readonly/f readonly/g; $h symlink x readonly/ln; $h link rootfile readonly/ln
$h mknod readonly/fifo p 0 0
$h unlink noexec; $h rename exec "$1/stolen"
echo "-- a world-writable directory without the sticky bit"
$h rename open/rootfile open/moved; $h unlink open/moved
echo "-- sticky directory"
$h unlink sticky/rootfile; $h unlink sticky/theirs; $h rename sticky/theirs sticky/mine
$h rmdir sticky/theirdir; $h rename sticky/rootdir sticky/otherdir
echo own > sticky/own && $h rename sticky/own sticky/own2 && $h unlink sticky/own2
ls sticky
echo "-- owner-only operations"
$h chmod rootfile 600; $h chmod writable 600; $h fchmod writable 600
$h utimensat writable 1000 2000; $h utimensat writable now now; $h utimensat rootfile now now
$h futimens writable now now; $h utimensat rootfile omit omit
$h setxattr rootfile user.k v; $h setxattr writable user.k v; $h getxattr writable user.k
$h stat rootfile writable | sed 's/ size=.*//'
echo "-- supplementary group"
$h open group/f rdwr; echo member > group/new && $h stat group/new | sed 's/ size=.*//'
$h chown group/new -1 4343
echo "-- hard links to others' files (protected_hardlinks)"
$h link secret "$1/secret-link"; $h link writable "$1/writable-link"
echo "-- in the caller's own directory"
cd "$1" || exit 1
echo mine > f; chmod 000 f; $h open f rdonly; $h open f wronly; chmod 644 f
mkdir d; echo x > d/x; chmod 300 d; ls d >/dev/null 2>&1 && echo listed || echo list-refused
$h open d/x rdonly; chmod 600 d; $h open d/x rdonly; $h stat d/x | sed 's/ size=.*//'; chmod 755 d
$h mkdir locked 500; $h open locked/f wronly,creat; chmod 755 locked; $h open locked/f wronly,creat
