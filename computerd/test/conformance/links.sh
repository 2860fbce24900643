#!/bin/bash
# Hard links (one inode, shared content, nlink as seen through the name just used) and symbolic links.
# Cross-name attribute freshness is hardlinks.sh (needs kernel attribute caching off, see the runner).
set -u
cd "$1" || exit 1
echo data > a
ln a b
stat -c '%h' b
[ "$(stat -c %i a)" = "$(stat -c %i b)" ] && echo same-inode
echo more >> b
cat a
ln b c; stat -c '%h' c
rm a; cat c
mkdir dir; ln dir dirlink 2>&1; echo "exit: $?"
ln -s c sym; readlink sym; cat sym
stat -c '%F %s' sym
ln -s missing dangling; readlink dangling; cat dangling 2>&1; echo "exit: $?"
[ -L dangling ] && echo is-link
ln -s dir dsym; echo inside > dsym/f; cat dir/f
ln -s ../"$(basename "$PWD")"/c up; cat up
ln -s /nonexistent/abs abs; readlink abs
mv sym sym2; readlink sym2
ls -l sym2 dangling | awk '{print $1, $9, $10, $11}'
rm -r dsym; ls
ln -s c c 2>&1 | sed 's/‘/'"'"'/g; s/’/'"'"'/g'; echo "exit: ${PIPESTATUS[0]}"
