#!/bin/bash
# rename in all its forms, with exact errno: over files, over empty and non-empty
# directories, file over directory and back, a directory into its own subtree, "." and "..",
# across directories (and across directories the caller may not write: $OTHERS), with hard
# links on both sides, and what each name shows afterwards.
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
echo a > a; echo b > b; $h rename a b; cat b; ls
mkdir e1 e2; $h rename e1 e2; ls -d e*
mkdir -p full/x e3; $h rename e3 full; $h rename e2 full; ls -d e* full
echo f > f; $h rename f full; $h rename full f; $h rename f f; $h rename full full
mkdir -p t/u/v; $h rename t t/u/v/w; $h rename t t/u; $h rename t/u t/u/v/w; $h rename t/u/v t
$h rename t/. x; $h rename t/.. x; $h rename . x; $h rename x t/.; $h rename missing x; $h rename f missing/x
$h rename f t/u/v/moved; $h rename t/u/v ./v; find t v | sort; $h stat v | sed 's/ size=.*//'
mkdir -p m/n; $h stat . t | sed 's/ size=.*//'; $h rename m/n t/n; $h stat m t | sed 's/ size=.*//'
echo "-- RENAME_NOREPLACE"
echo n1 > n1; echo n2 > n2; $h noreplace n1 n2; $h noreplace n1 n3; $h noreplace n3 n3; cat n2 n3; rm n2 n3
echo "-- hard links on both sides"
echo one > h1; ln h1 h2; echo two > k1; ln k1 k2
$h rename h1 h2; ls h1 h2; $h stat h2 | sed 's/ size=.*//'
$h rename h1 k1; stat -c '%n %h' h1 h2 k1 k2 2>&1 | sed 's/.*: //'
cat k1 k2; [ "$(stat -c %i k1)" = "$(stat -c %i h2)" ] && echo k1-is-h2
echo "-- across directories the caller may not write"
$h rename "$OTHERS/rootfile" mine; $h rename "$OTHERS/readonly/f" mine; $h rename v "$OTHERS/readonly/v"
$h rename v "$OTHERS/open/v"; $h rename "$OTHERS/open/v" v; ls -d v
echo "-- RENAME over a file that is open"
echo old > target; exec 3< target; echo new > src; $h rename src target; cat target; cat <&3; exec 3<&-
ls | sort
