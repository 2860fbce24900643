#!/bin/bash
# Files of other owners for the permission checks (run as root before every script,
# in a fresh directory $1 passed to the script as $OTHERS): root's and uid 4343's
# files and directories with the modes an unprivileged caller (4242, groups 4242 and
# 4343) must be refused or allowed by. Both sides get the same tree.
set -eu
cd "$1"
umask 022
echo root > rootfile
echo secret > secret && chmod 600 secret
printf '#!/bin/sh\necho ran\n' > noexec && chmod 644 noexec
printf '#!/bin/sh\necho ran\n' > exec && chmod 755 exec
echo shared > writable && chmod 666 writable
echo suid > suid && chmod 4777 suid
echo sgid > sgid && chmod 2777 sgid
echo theirs > usergroup0 && chown 4242:0 usergroup0
mkdir nosearch && echo hidden > nosearch/f && chmod 700 nosearch
mkdir searchonly && echo found > searchonly/f && chmod 711 searchonly
mkdir readonly && echo kept > readonly/f && mkdir readonly/sub && chmod 555 readonly
mkdir open && echo gone > open/rootfile && chmod 777 open
mkdir sticky && chmod 1777 sticky
echo root > sticky/rootfile
mkdir sticky/rootdir
echo theirs > sticky/theirs && mkdir sticky/theirdir && chown 4343:4343 sticky/theirs sticky/theirdir
mkdir group && echo team > group/f && chown -R 0:4343 group && chmod 770 group && chmod 660 group/f
echo 4343 > other4343 && chown 4343:4343 other4343
echo trunc > suidtrunc && chmod 6777 suidtrunc
mkdir setgid && chmod 2777 setgid
