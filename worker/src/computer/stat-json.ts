/**
 * How stats and directory entries look on the wire: modes as octal strings, times as
 * ISO-8601 (milliseconds) plus exact `{ sec, nsec }` timespecs, paths absolute from the
 * workspace root ("/a/b").
 */
import type { EntryJson, StatJson } from "@computer/sdk/contract";
import type { DirEntry, Stat, Timespec } from "@computer/vfs";
import { formatMode } from "../http/mode.ts";

/**
 * ISO-8601 of a Timespec, truncated to the millisecond it falls in. Integer arithmetic:
 * a fractional millisecond count would round across a second boundary (and Date truncates
 * toward zero, which moves a time just before 1970 to 1970-01-01T00:00:00.000Z).
 */
export function isoOf(time: Timespec): string {
  return new Date(time.sec * 1000 + Math.floor(time.nsec / 1e6)).toISOString();
}

/** A stat and a directory entry on the wire: the contract's types. */
export type { EntryJson, StatJson };

/** `stat` of `path` as JSON. */
export function statJson(path: string, stat: Stat): StatJson {
  return {
    path,
    type: stat.type,
    size: stat.size,
    mode: formatMode(stat.mode),
    uid: stat.uid,
    gid: stat.gid,
    nlink: stat.nlink,
    ino: stat.ino,
    rdev: stat.rdev,
    rdevMajor: rdevMajor(stat.rdev),
    rdevMinor: rdevMinor(stat.rdev),
    allocated: stat.allocated,
    mtime: isoOf(stat.mtime),
    atime: isoOf(stat.atime),
    ctime: isoOf(stat.ctime),
    timespec: {
      atime: { sec: stat.atime.sec, nsec: stat.atime.nsec },
      mtime: { sec: stat.mtime.sec, nsec: stat.mtime.nsec },
      ctime: { sec: stat.ctime.sec, nsec: stat.ctime.nsec },
    },
  };
}

// glibc's gnu_dev_major/gnu_dev_minor over a 64-bit dev_t. Division instead of shifts:
// JS shifts truncate to 32 bits and rdev may use the high word.
const TWO_32 = 2 ** 32;

/** The major number of a Linux `dev_t`. */
export function rdevMajor(rdev: number): number {
  const low = rdev % TWO_32;
  const high = Math.floor(rdev / TWO_32);
  return ((low >>> 8) & 0xfff) | ((high & ~0xfff) >>> 0);
}

/** The minor number of a Linux `dev_t`. */
export function rdevMinor(rdev: number): number {
  const low = rdev % TWO_32;
  const high = Math.floor(rdev / TWO_32);
  return ((low & 0xff) | ((low >>> 12) & 0xfff00) | ((high & 0xfff) << 20)) >>> 0;
}

/** A directory entry as JSON (the vfs type string is kept for fifos, sockets and devices). */
export function entryJson(entry: DirEntry): EntryJson {
  return {
    name: entry.name,
    type: entry.type,
    size: entry.size,
    mode: formatMode(entry.mode),
    mtime: isoOf(entry.mtime),
  };
}

/** An HTTP date (`Last-Modified`) of a Timespec. */
export function httpDate(time: Timespec): string {
  return new Date(time.sec * 1000 + Math.floor(time.nsec / 1e6)).toUTCString();
}

/** A strong ETag for a file's current content: inode, size and change time. */
export function etag(stat: Stat): string {
  return `"${stat.ino.toString(36)}-${stat.size.toString(36)}-${stat.ctime.sec.toString(36)}.${stat.ctime.nsec.toString(36)}"`;
}
