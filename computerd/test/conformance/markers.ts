/**
 * Output that proves a conformance script did its real work, per caller: a script that
 * fails the same way on the mount and on tmpfs prints the same (wrong) output on both, so
 * equality alone cannot pass it. Every script needs markers for both callers; where root
 * and the unprivileged user must see different answers, the markers say which.
 */
import type { Caller } from "./runner.ts";

const both = (...markers: string[]): Record<Caller, string[]> => ({ root: markers, user: markers });

export const MARKERS: Record<string, Record<Caller, string[]>> = {
  "atime.sh": both(
    "read after write: atime moved\nrecent: 1\nsecond read: atime kept",
    "read after touch -a in the past: atime moved",
    "readdir after create: atime moved",
    "target read through the link: atime moved",
  ),
  "attrs.sh": {
    root: ["1000:2000\n0:0\n1234 755", "['user.size']", "fifo 644"],
    user: ["4242:4242\n4242:4242\n4242 755", "['user.size']", "fifo 644"],
  },
  "copies.sh": both("gap is zeros True", "overlapping EINVAL", "source still open 2097159", "cp-equal"),
  "data.sh": both("binary-ran", "script ran with arg", "copy-equal"),
  "deep.sh": both(
    "relative path bytes: 4095\nopen O_CREAT ok\nmkdir ok\nmkfifo ok\nmknod ok\nsymlink ok\nlink ok\nrename ok",
    "one byte more ENAMETOOLONG",
    "read: deep file | via link: deep file",
    "deeper: deeper ['g'] True",
    "-- from the script's directory\ndeeper\n34\n",
    "rm exit: 0\n",
  ),
  "dirs.sh": both("dot-is-self", "dotdot-is-parent", "/x/y"),
  "exchange.sh": {
    root: [
      "inodes-swapped",
      "p/dir regular file 1\nq/file directory 3",
      "dotdot-follows",
      "s-is-h2",
      "written before\nwritten after",
      "ctime of the file advanced\nmtime of the file unchanged",
      "exchange EINVAL\nexchange EINVAL\nexchange EINVAL",
      "exchange ok\nroot",
    ],
    user: [
      "inodes-swapped",
      "p/dir regular file 1\nq/file directory 3",
      "dotdot-follows",
      "written before\nwritten after",
      "exchange EACCES\nexchange EACCES\nexchange ok\nlocked regular file",
      "exchange EACCES\nmine",
      "exchange EPERM\nexchange EPERM\nexchange ok",
    ],
  },
  "files.sh": both("copy-equal", "abcdef", "4000\n4001\n4002"),
  "git.sh": both("initial commit", "in-pack: "),
  "hardlinks.sh": both("2 5\n2 5\n3\n3\n3\n10\n10\n10\n2\n2\n3\n3\n3\n1\n"),
  "links.sh": both("same-inode", "is-link", "inside"),
  "npm.sh": both("added 1 package", "42\n", "tiny-conformance-pkg@1.0.0"),
  "nlink.sh": both(
    "same-inode",
    "ctime by link advanced",
    "ctime by unlink advanced",
    "ctime by rename advanced",
  ),
  "owners.sh": {
    root: [
      "4242:4343 2755 directory sg/sub",
      "read-denied",
      "chown-denied",
      "sticky-denied",
      "setgid/f file 0755 nlink=1 4242:0",
    ],
    user: [
      "4242:4343 2755 directory sg/sub",
      "chown-denied",
      "640\nhi\nmore",
      "setgid/f file 0755 nlink=1 4242:0",
    ],
  },
  "ownership.sh": {
    root: [
      "m2745 file 2745",
      "m6755 file 0755",
      "follow f file 0644 nlink=1 4242:4343",
      "suid file 4777",
      "suidtrunc file 6777",
    ],
    user: [
      "chown EPERM",
      "m2745 file 2745",
      "usergroup0 file 0755",
      "suid file 0777",
      "sgid file 0777",
      "suidtrunc file 0777",
    ],
  },
  "permissions.sh": {
    root: ["list-searchonly", "noexec-refused", "link ok\nlink ok"],
    user: [
      "nosearch/f EACCES",
      "no-list-searchonly",
      "unlink EPERM\nunlink EPERM\nrename EPERM\nrmdir EPERM",
    ],
  },
  "posix.sh": {
    root: [
      "dir-nlink 4",
      "character special file 1:3",
      "5368709120",
      "nofollow ELOOP",
      "Operation not permitted",
    ],
    user: ["dir-nlink 4", "ctime-link", "5368709120", "nofollow ELOOP", "256 ENAMETOOLONG"],
  },
  "rename.sh": both("./z/moved", "rename missing: 2"),
  "refused.sh": both(
    "rename ENOTEMPTY\na: in-a \nin\na directory 3\nb: c \nin\nb directory 3\n",
    "Directory not empty: 'a' -> 'b'\nc\n",
    "rename EISDIR\nf regular file 1 5",
    "rename ENOTDIR\nd: in-d \nin\nd directory 3\nf regular file 1 5\nfile\nfile\n",
    "rename EINVAL\nt: sub \nin",
    "noreplace EEXIST\nf regular file 1 5\nfile\ng regular file 1 2\ng\ng\n",
    "rename EXDEV\nrename EXDEV\n",
    "-- and from deeper down\nrename ENOTEMPTY\na: in-a",
  ),
  "renames.sh": {
    root: ["rename ENOTEMPTY", "rename EINVAL", "k1-is-h2", "h1\nh2"],
    user: ["rename ENOTEMPTY", "rename EINVAL", "k1-is-h2", "rename EACCES\nrename EACCES\nrename EACCES"],
  },
  "sparse.sh": both("sparse", "zeros-before"),
  "sizes.sh": both("17179869192", "across4g", "open ELOOP", "open ENAMETOOLONG", "onetwoX"),
  "special.sh": {
    root: [
      "null char 0644 nlink=1 0:0 rdev=1:3",
      "bigdev char 0644 nlink=1 0:0 rdev=259:65537",
      "through-the-fifo",
    ],
    user: ["mknod EPERM", "bound.sock socket", "through-the-fifo"],
  },
  "times.sh": both("2001-02-03 04:05:06.123456789", "now-is-recent True"),
  "timestamps.sh": both("m=16725225600.000000007", "a=-1.000000000", "link       file: c  dir: m c"),
  "unlinked.sh": both("after unlink: nlink=0 size=6", "names while open: 0", "cwd nlink 0"),
  "writers.sh": both("600\n", "b'line4\\n'"),
  "xattrs.sh": {
    root: ["big len 60000", "create existing EEXIST", "capability set: True\nafter a write: False"],
    user: ["big len 60000", "setxattr EACCES", "capability Operation not permitted\nafter a write: False"],
  },
};
