#!/bin/bash
# renameat2(RENAME_EXCHANGE), as tmpfs and ext4 do it: two files, a file with a directory
# across directories (the subdirectory link counts move), two non-empty directories, a
# symlink with a fifo, hard links, an open file and one with unwritten data, which times
# move, the error cases (a missing name, a directory with a path inside it), a directory the
# caller may not write, and swaps with other owners' files (permission and sticky-bit rules).
# Inode numbers and times are compared, never printed; a short sleep lets the coarse kernel
# clock tick.
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
ino() { stat -c %i "$1"; }
tick() { sleep 0.05; }
stamp() { stat -c "%$2.%.9$2" "$1" | sed 's/\..*\./ /' | { read -r s n; printf '%012d.%s\n' "$s" "$n"; }; }
later() { # later WHAT BEFORE AFTER: prints whether AFTER > BEFORE
  if [[ "$3" > "$2" ]]; then echo "$1 advanced"; else echo "$1 unchanged"; fi
}
echo "-- two files"
echo alpha > a; echo beta > b; ia=$(ino a); ib=$(ino b)
$h exchange a b; cat a b; ls
[ "$(ino a)" = "$ib" ] && [ "$(ino b)" = "$ia" ] && echo inodes-swapped
$h exchange a a; cat a
echo "-- a directory and a file across directories"
mkdir -p p/dir/sub q; echo deep > p/dir/sub/f; echo flat > q/file
stat -c '%n %h' p q
$h exchange p/dir q/file
stat -c '%n %F %h' p q p/dir q/file; cat p/dir q/file/sub/f; find p q | sort
$h exchange p/dir q/file; stat -c '%n %F %h' p q p/dir q/file
echo "-- two non-empty directories"
mkdir -p x/one/deep y/two; echo 1 > x/one/deep/f; echo 2 > y/two/g; echo x1 > x/one/both; echo y2 > y/two/both
$h exchange x/one y/two; find x y | sort; cat x/one/g x/one/both y/two/deep/f y/two/both
stat -c '%n %h' x/one y/two
[ "$(cd y/two/deep/.. && pwd -P)" = "$(pwd -P)/y/two" ] && echo dotdot-follows
echo "-- a symlink and a fifo, a file and a directory in one directory"
ln -s target-text link; mkfifo pipe; $h exchange link pipe; stat -c '%n %F' link pipe; readlink pipe
mkdir d1; echo in-d1 > d1/f; echo plain > f1; $h exchange d1 f1; stat -c '%n %F' d1 f1; cat f1/f d1; stat -c '%h' .
echo "-- hard links"
echo linked > h1; ln h1 h2; echo single > s
$h exchange h1 s; stat -c '%n %h' h1 h2 s; cat s h1
[ "$(ino s)" = "$(ino h2)" ] && echo s-is-h2
$h exchange h2 s; stat -c '%n %h' h2 s
echo "-- open files"
echo old-o1 > o1; echo old-o2 > o2; exec 3< o1
$h exchange o1 o2; cat <&3; exec 3<&-; cat o1 o2
exec 4> w1; echo w2 > w2; echo "written before" >&4
$h exchange w1 w2; echo "written after" >&4; exec 4>&-; cat w1; echo ==; cat w2
echo "-- times"
mkdir tp tq; echo t1 > tp/t1; mkdir tq/t2; tick
c1=$(stamp tp/t1 Z); m1=$(stamp tp/t1 Y); c2=$(stamp tq/t2 Z); m2=$(stamp tq/t2 Y)
mp=$(stamp tp Y); cp=$(stamp tp Z); mq=$(stamp tq Y); cq=$(stamp tq Z); dot=$(stamp . Y); tick
$h exchange tp/t1 tq/t2
later "ctime of the file" "$c1" "$(stamp tq/t2 Z)"; later "mtime of the file" "$m1" "$(stamp tq/t2 Y)"
later "ctime of the dir" "$c2" "$(stamp tp/t1 Z)"; later "mtime of the dir" "$m2" "$(stamp tp/t1 Y)"
later "mtime of tp" "$mp" "$(stamp tp Y)"; later "ctime of tp" "$cp" "$(stamp tp Z)"
later "mtime of tq" "$mq" "$(stamp tq Y)"; later "ctime of tq" "$cq" "$(stamp tq Z)"
later "mtime of ." "$dot" "$(stamp . Y)"; stat -c '%n %h' tp tq
echo "-- errors"
mkdir -p t/u/v; echo e > e
$h exchange e missing; $h exchange missing e; $h exchange e missing/x; $h exchange e/x t
$h exchange t t/u; $h exchange t/u t; $h exchange t/u/v t; $h exchange e t/u/v/..
$h exchange t/. e; $h exchange . e
find t e | sort
echo "-- a directory the caller may not write changes parents only for root (its .. changes)"
mkdir locked elsewhere; echo e > elsewhere/e; echo here > here; chmod 555 locked
$h exchange locked elsewhere/e; $h exchange elsewhere/e locked; $h exchange locked here
stat -c '%n %F' locked here elsewhere/e; chmod 755 locked here 2>/dev/null; true
echo "-- other owners' files"
echo mine > mine; mkdir mydir; echo inside > mydir/f
$h exchange mine "$OTHERS/rootfile"; cat mine; $h exchange mine "$OTHERS/rootfile"
$h exchange mine "$OTHERS/readonly/f"; $h exchange "$OTHERS/secret" "$OTHERS/writable"
$h exchange mine "$OTHERS/sticky/rootfile"; $h exchange mine "$OTHERS/sticky/theirs"
$h exchange mydir "$OTHERS/open/rootfile"; cat mydir; ls "$OTHERS/open" | sort
$h exchange mydir "$OTHERS/open/rootfile"; cat mydir/f
ls | sort
