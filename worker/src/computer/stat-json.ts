/**
 * How stats and directory entries look on the wire: modes as octal strings, times as
 * ISO-8601, paths absolute from the workspace root ("/a/b").
 */
import { type DirEntry, type Stat, type Timespec, toIso, toMs } from "@computer/vfs";
import { formatMode } from "../http/mode.ts";

/** A stat in a JSON response. */
export interface StatJson {
  path: string;
  type: string;
  size: number;
  mode: string;
  uid: number;
  gid: number;
  nlink: number;
  ino: number;
  mtime: string;
  atime: string;
  ctime: string;
}

/** A directory entry in a JSON listing. */
export interface EntryJson {
  name: string;
  type: string;
  size: number;
  mode: string;
  mtime: string;
}

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
    mtime: toIso(stat.mtime),
    atime: toIso(stat.atime),
    ctime: toIso(stat.ctime),
  };
}

/** A directory entry as JSON (the vfs type string is kept for fifos, sockets and devices). */
export function entryJson(entry: DirEntry): EntryJson {
  return {
    name: entry.name,
    type: entry.type,
    size: entry.size,
    mode: formatMode(entry.mode),
    mtime: toIso(entry.mtime),
  };
}

/** An HTTP date (`Last-Modified`) of a Timespec. */
export function httpDate(time: Timespec): string {
  return new Date(toMs(time)).toUTCString();
}

/** A strong ETag for a file's current content: inode, size and change time. */
export function etag(stat: Stat): string {
  return `"${stat.ino.toString(36)}-${stat.size.toString(36)}-${stat.ctime.sec.toString(36)}.${stat.ctime.nsec.toString(36)}"`;
}
