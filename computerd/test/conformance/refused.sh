#!/bin/bash
# A refused rename changes nothing: for each way rename(2) refuses (ENOTEMPTY, EISDIR,
# ENOTDIR, EINVAL, EEXIST with RENAME_NOREPLACE, EXDEV off the filesystem), both names are
# used at once afterwards — listed, stat'ed, created in, removed from — with no pause, also
# while a file involved is open.
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
use() {
  for name in "$@"; do
    if [ -d "$name" ]; then
      echo "$name: $(ls "$name" | tr '\n' ' ')"
      mkdir "$name/x" && touch "$name/f" && echo in > "$name/f" && cat "$name/f" && rm "$name/f" && rmdir "$name/x" || echo "$name: broken"
      stat -c '%n %F %h' "$name"
    else
      stat -c '%n %F %h %s' "$name" && cat "$name"
    fi
  done
}
mkdir -p a/in-a b/c; $h rename a b; use a b
mkdir -p a/in-a b/c; python3 -c "import os; os.rename('a', 'b')" 2>&1 | tail -1; ls b
echo file > f; mkdir -p d/in-d; $h rename f d; use f d
$h rename d f; use d f
exec 3< f; $h rename d f; use d f; cat <&3; exec 3<&-
mkdir -p t/sub/in-sub; $h rename t t/sub/moved; use t t/sub
echo g > g; exec 3< g; $h noreplace f g; use f g; cat <&3; exec 3<&-
$h rename f /proc/refused-elsewhere; $h rename d /proc/refused-elsewhere; use f d
echo "-- and from deeper down"
mkdir -p deep/er/a/in-a deep/er/b/c; cd deep/er || exit 1; $h rename a b; use a b; cd ../.. || exit 1
find . | sort
