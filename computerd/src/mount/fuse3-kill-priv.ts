/**
 * What a write, a truncate or an O_TRUNC open takes from a file when the kernel leaves it to the
 * daemon (FUSE_HANDLE_KILLPRIV_V2, native/kill-priv.h): setuid, and setgid where it marks a
 * group executable, when the caller lacks CAP_FSETID (the kernel's kill bit says so); setgid of
 * a file without group execute too when the caller is not in the file's group (Linux's
 * `setattr_should_drop_sgid`); and a write's `security.capability`, whoever writes (the kernel
 * removes it itself wherever it still probes: this covers an inode it marked before the
 * attribute came from elsewhere).
 */
import { readFileSync } from "node:fs";
import { CAPABILITY_XATTR } from "./fuse3-xattrs.ts";
import type { LocalFs } from "./local-fs.ts";
import type { OwnerMap } from "./owner-map.ts";

/** The kill bits native/fuse3.c pushes with a write, setattr or open. */
export const KILL_SETID = 1;
/** FUSE_HANDLE_KILLPRIV_V2 is on: a write's capability is the daemon's to remove (writes only). */
export const KILL_CAPABILITY = 2;

const S_ISUID = 0o4000;
const S_ISGID = 0o2000;
const S_IXGRP = 0o010;
/** Setuid or setgid: a file with either makes writes that kill them reach the listener. */
export const SETID_BITS = S_ISUID | S_ISGID;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

/** Whether `mode` (type bits included) is a regular file's with setuid or setgid. */
export const isSetidFile = (mode: number) => (mode & SETID_BITS) !== 0 && (mode & S_IFMT) === S_IFREG;
/** A regular file's mode from its permission bits (setattr passes no type). */
export const fileMode = (mode: number) => S_IFREG | (mode & 0o7777);

/** The supplementary groups of process `pid` (kernel ids), empty when it is gone. */
function groupsOf(pid: number): number[] {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^Groups:(.*)$/m)?.[1] ?? "";
    return line.trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The caller of a request: its kernel gid and pid (for its supplementary groups). */
export interface KillCaller {
  gid: number;
  pid: number;
}

/**
 * Applies the kill bits `kill` of a request by `caller` to the file at `path`. True when the mode
 * changed: the kernel, which caches it, must be told before the request is answered.
 */
export function killPrivileges(
  fs: LocalFs,
  owners: OwnerMap | undefined,
  path: string,
  kill: number,
  caller: KillCaller,
): boolean {
  if (kill & KILL_CAPABILITY && fs.getxattr(path, CAPABILITY_XATTR) !== undefined)
    fs.removexattr(path, CAPABILITY_XATTR);
  if (!(kill & KILL_SETID)) return false;
  const stat = fs.stat(path);
  if (stat.type !== "file" || !(stat.mode & SETID_BITS)) return false;
  let mode = stat.mode & ~S_ISUID;
  if (mode & S_ISGID && !(mode & S_IXGRP)) {
    const fileGid = owners ? owners.toKernel({ uid: stat.uid, gid: stat.gid }).gid : stat.gid;
    if (caller.gid !== fileGid && !groupsOf(caller.pid).includes(fileGid)) mode &= ~S_ISGID;
  } else mode &= ~S_ISGID;
  if (mode === stat.mode) return false;
  fs.chmod(path, mode);
  return true;
}
