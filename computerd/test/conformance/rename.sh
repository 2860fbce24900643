#!/bin/bash
# rename: over files, over empty and non-empty directories, across directories, errors.
set -u
cd "$1" || exit 1
echo one > f1; echo two > f2
mv f1 f2; ls; cat f2
mkdir d1 d2; echo in > d1/x
mv d1 d2 2>&1; ls d2
mkdir d3; echo y > d3/y
mv d2/d1 d3 2>&1; echo "exit: $?"
mkdir e1 e2
mv -T e1 e2 2>&1; echo "exit: $?"; ls
mkdir -p e3/sub; echo deep > e3/sub/deep
mv -T e2 e3 2>&1; echo "exit: $?"
mv e3 renamed; cat renamed/sub/deep
mkdir z; mv f2 z/moved; ls z
echo file > plain
mv -T z plain 2>&1; echo "exit: $?"
mv -T plain z 2>&1; echo "exit: $?"
mv renamed renamed/sub 2>&1 | sed 's/‘/'"'"'/g; s/’/'"'"'/g'; echo "exit: ${PIPESTATUS[0]}"
python3 - <<'PY'
import os
open("p1", "w").write("1")
open("p2", "w").write("2")
os.rename("p1", "p2")
print(open("p2").read(), sorted(n for n in os.listdir(".") if n.startswith("p")))
try:
    os.rename("missing", "x")
except OSError as e:
    print("rename missing:", e.errno)
PY
find . | sort
