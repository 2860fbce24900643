#!/bin/bash
# chown/lchown/fchown with the Linux rules, for the caller the runner chose: only root
# changes the owner; anyone may "change" it to itself; the owner may change the group only
# to a group it belongs to (EPERM otherwise, and on others' files). chown clears setuid,
# and setgid only together with group-exec (setgid without it marks mandatory locking);
# a write by a non-owner clears them too (root keeps them: CAP_FSETID); chmod g+s by a
# caller outside the file's group silently drops setgid. $OTHERS holds others' files.
set -u
cd "$1" || exit 1
umask 022
h="$POSIX_HELPER"
echo "caller $(id -u):$(id -g) groups $(id -G)"
echo data > f; ln -s f sl; mkdir d
$h stat f sl d | sed 's/^/new /'
$h chown f -1 4343; $h stat f
$h chown f "$(id -u)" -1; $h stat f
$h chown f 4343 -1; $h stat f
$h chown f -1 0; $h stat f
$h lchown sl -1 4343; $h stat sl f | sed 's/^/lchown /'
$h fchown f -1 "$(id -g)"; $h stat f
$h chown sl 4242 4343; $h stat sl f | sed 's/^/follow /'
$h chown d -1 4343; $h stat d
echo "-- setuid and setgid on chown"
for mode in 4755 2755 2745 6755 6745; do
  echo x > m$mode; chmod $mode m$mode
  $h chown m$mode -1 4343 >/dev/null; $h stat m$mode
done
mkdir sgdir; chmod 2755 sgdir; $h chown sgdir -1 4343 >/dev/null; $h stat sgdir
echo "-- chmod g+s outside the file's group"
$h chmod "$OTHERS/usergroup0" 2755; $h stat "$OTHERS/usergroup0" | sed "s|$OTHERS/||"
echo x > mine; $h chmod mine 2755; $h stat mine
echo "-- others' files"
cd "$OTHERS" || exit 1
$h chown rootfile -1 4343; $h chown rootfile 4242 -1; $h fchown rootfile 4242 4242; $h lchown rootfile 0 0
$h stat rootfile other4343
$h chown other4343 -1 4343; $h chmod other4343 600; $h stat other4343
echo "-- a write or truncate by a non-owner"
echo more >> suid; echo more >> sgid; $h truncate suidtrunc 2
$h stat suid sgid suidtrunc
