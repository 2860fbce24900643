#!/bin/bash
# Access times as Linux keeps them on a relatime mount (tmpfs, ext4 by default): a read,
# a readdir and a symlink followed or read advance atime only when it is not newer than
# mtime or ctime (or a day old); writes never do; an atime set in the future stays.
set -u
cd "$1" || exit 1
h="$POSIX_HELPER"
atime() { $h times "$1" | cut -d' ' -f2; }
# step LABEL PATH COMMAND...: runs the command after a pause (coarse kernel clocks), prints
# whether PATH's atime moved.
step() {
  local label=$1 path=$2; shift 2
  sleep 0.05
  local before; before=$(atime "$path")
  "$@" >/dev/null 2>&1
  if [ "$before" != "$(atime "$path")" ]; then echo "$label: atime moved"; else echo "$label: atime kept"; fi
}
recent() { # recent PATH: is its atime within a few seconds of now?
  $h times "$1" | awk -v now="$(date +%s)" '{split($2, a, "[=.]"); print "recent:", (a[2] >= now - 5 && a[2] <= now + 5)}'
}

echo data > f
step "read after write" f cat f
recent f
step "second read" f cat f
step "third read, other tool" f head -c 2 f
step "append" f sh -c 'echo more >> f'
step "read after append" f cat f
touch -a -d '2001-02-03 04:05:06' f
step "read after touch -a in the past" f cat f
recent f
touch -a -d '2100-01-01 00:00:00' f
step "read with atime in the future" f cat f
touch -a -d '2001-02-03 04:05:06' f
step "read by cp" f cp f copy
step "read of the copy" copy cat copy
step "stat" copy stat copy
step "write" copy sh -c 'echo x > copy'

echo "-- directories"
mkdir d
step "readdir after mkdir" d ls d
step "readdir again" d ls d
step "lookup in it" d stat d/missing
step "create in it" d touch d/new
step "readdir after create" d ls -a d
recent d
step "readdir again" d ls d
step "readdir through find" d find d
touch -a -d '2001-02-03 04:05:06' d
step "readdir after touch -a" d ls d

echo "-- symlinks"
ln -s f sl
touch -a -d '2001-02-03 04:05:06' f
step "target read through the link" f cat sl
step "the link itself, following it again" sl cat sl
touch -h -a -d '2001-02-03 04:05:06' sl
step "the link, followed" sl cat sl
recent sl
touch -h -a -d '2001-02-03 04:05:06' sl
step "readlink" sl readlink sl
step "readlink again" sl readlink sl
step "lstat of the link" sl stat sl
