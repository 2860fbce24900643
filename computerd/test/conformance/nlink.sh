#!/bin/bash
# Hard links and link counts right away: nlink through every name after link/unlink/rename,
# the same inode number through every name, directories at 2 + subdirectories (mkdir,
# rmdir, rename of a subdirectory between parents, rename over an empty directory), and
# ctime (never mtime) of the inode advanced by link, unlink and rename. Timestamps are
# compared, never printed; a short sleep lets the coarse kernel clock tick.
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
tick() { sleep 0.05; }
later() { # later WHAT BEFORE AFTER: prints whether AFTER > BEFORE
  if [[ "$3" > "$2" ]]; then echo "$1 advanced"; else echo "$1 unchanged"; fi
}
ctime() { stat -c '%Z.%.9Z' "$1" | sed 's/\..*\./ /' | { read -r s n; printf '%012d.%s\n' "$s" "$n"; }; }
mtime() { stat -c '%Y.%.9Y' "$1" | sed 's/\..*\./ /' | { read -r s n; printf '%012d.%s\n' "$s" "$n"; }; }
echo data > a
c0=$(ctime a); m0=$(mtime a); tick
ln a b; $h link a c; c1=$(ctime a)
stat -c '%h' a b c; later "ctime by link" "$c0" "$c1"; later "mtime by link" "$m0" "$(mtime a)"
[ "$(stat -c %i a)" = "$(stat -c %i b)" ] && [ "$(stat -c %i b)" = "$(stat -c %i c)" ] && echo same-inode
ls -i a b c | awk '{print $1}' | sort -u | wc -l
tick; rm b; c2=$(ctime a); stat -c '%h' a c; later "ctime by unlink" "$c1" "$c2"
tick; mv c moved; c3=$(ctime a); stat -c '%h' a moved; later "ctime by rename" "$c2" "$c3"
echo "-- rename onto another name of the same inode is a no-op"
ln a twin; $h rename a twin; ls a twin moved; stat -c '%h' a twin
echo other > x; ln x x2; $h rename twin x; stat -c '%h %s' x x2 a moved
echo "-- directories: 2 + subdirectories"
mkdir p q; stat -c '%h' . p q | tr '\n' ' '; echo
mkdir p/s1 p/s2 p/s3; touch p/file; stat -c '%h' p
rmdir p/s3; stat -c '%h' p
mv p/s2 q/; stat -c '%h' p q q/s2
mkdir q/empty; mv p/s1 q/empty 2>/dev/null || $h rename p/s1 q/empty; stat -c '%h' p q
ln -s q qlink; stat -c '%h' . q
mv q p/q; stat -c '%h' . p p/q
rm -r p; stat -c '%h' .
echo "-- link errors"
mkdir dir; $h link dir dirlink; $h link missing nope; $h link a a; $h link a dir/../moved
$h stat a moved | sed 's/ size=.*//'
