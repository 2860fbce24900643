#!/bin/bash
# Directories: mkdir -p, readdir with . and .., nlink, rmdir, rm -rf, large listings, find.
set -u
cd "$1" || exit 1
mkdir -p a/b/c/d
ls -a a; ls -a a/b/c/d
[ "$(stat -c %i a/b)" = "$(ls -ai a/b | awk '$2 == "." {print $1}')" ] && echo dot-is-self
[ "$(stat -c %i a)" = "$(ls -ai a/b | awk '$2 == ".." {print $1}')" ] && echo dotdot-is-parent
stat -c '%h' a a/b a/b/c/d
mkdir a 2>&1; echo "exit: $?"
mkdir -p a/b; echo "exit: $?"
rmdir a 2>&1; echo "exit: $?"
touch a/b/c/file
rmdir a/b/c 2>&1; echo "exit: $?"
for i in $(seq 1 600); do echo $i > a/n$i; done
ls a | wc -l
ls -a a | head -4
ls a | sort | md5sum
find . -type f | wc -l
find . -type d | sort
mkdir -p tree
for x in 1 2 3; do for y in 1 2 3; do mkdir -p tree/$x/$y; touch tree/$x/$y/f; done; done
find tree | sort | md5sum
du -a tree | wc -l
rm -rf a tree
ls -a
mkdir -p x/y; cd x/y; pwd | sed "s|$1||"; cd ../..; rm -r x; ls -a
