#!/bin/bash
# git: init, add, commit, status, diff, branch, mv, fsck, gc — with fixed dates so hashes match.
set -u
cd "$1" || exit 1
export GIT_AUTHOR_DATE='2020-01-01T00:00:00Z' GIT_COMMITTER_DATE='2020-01-01T00:00:00Z'
export GIT_CONFIG_NOSYSTEM=1 HOME="$PWD/home"
mkdir -p home repo && cd repo || exit 1
git init -q -b main .
git config user.name 'Conformance'
git config user.email 'conformance@example.com'
for d in src lib docs; do mkdir $d; for i in $(seq 1 30); do echo "$d file $i" > $d/f$i.txt; done; done
git add -A && git commit -q -m 'initial commit'
git log --format='%H %s'
git status --porcelain | wc -l
echo changed >> src/f1.txt; rm lib/f2.txt; echo new > new.txt
git status --porcelain
git diff --stat | tail -1
git add -A && git commit -q -m 'second'
git checkout -q -b feature
git mv docs/f3.txt docs/moved.txt
git commit -q -m 'move'
git checkout -q main
ls docs | head -3
git merge -q --no-edit feature
git log --format='%H %s'
git fsck --full 2>&1 | grep -v '^Checking' | head -5
git gc -q 2>&1
git count-objects -v | grep -E '^(count|in-pack):'
git status --porcelain | wc -l
