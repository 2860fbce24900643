#!/bin/bash
# Hard links seen through every name right after a change through another one
# (nlink after link/unlink, size after a write), with kernel attribute caching on: every
# name of a file is one kernel inode, so no name can show stale attributes.
set -u
cd "$1" || exit 1
echo data > a
ln a b
stat -c '%h %s' a b
ln b c; stat -c '%h' a b c
echo more >> c
stat -c '%s' a b c
rm a; stat -c '%h' b c
mkdir d; ln c d/e; stat -c '%h' b c d/e
rm d/e c; stat -c '%h' b
