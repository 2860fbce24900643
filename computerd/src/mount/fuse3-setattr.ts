/**
 * FUSE setattr on a LocalFs: the kernel's `to_set` bits (size, mode, owner, times with
 * UTIME_NOW/UTIME_OMIT) applied to a path, owner ids mapped from the kernel's to the vfs's.
 */
import type { TimeArg } from "@computer/vfs";
import { fileMode, isSetidFile, KILL_SETID, type KillCaller, killPrivileges } from "./fuse3-kill-priv.ts";
import type { LocalFs } from "./local-fs.ts";
import type { OwnerMap } from "./owner-map.ts";

const SET_MODE = 1 << 0;
const SET_UID = 1 << 1;
const SET_GID = 1 << 2;
const SET_SIZE = 1 << 3;
export const SET_ATIME = 1 << 4;
export const SET_MTIME = 1 << 5;
export const SET_ATIME_NOW = 1 << 7;
export const SET_MTIME_NOW = 1 << 8;

function time(flags: number, setBit: number, nowBit: number, sec: number, nsec: number): TimeArg {
  if (flags & nowBit) return "now";
  if (flags & setBit) return { sec, nsec };
  return "omit";
}

/**
 * Applies a setattr request's arguments `n(1)..n(11)` (to_set, mode, uid, gid, size, atime,
 * mtime as seconds and nanoseconds, the handle or -1, the kill bits) by `caller` to `path`.
 * `setidStored` runs first when a regular file is to get setuid or setgid (fuse3-kill-priv.ts).
 */
export function setattr(
  fs: LocalFs,
  owners: OwnerMap | undefined,
  path: string,
  n: (i: number) => number,
  caller: KillCaller = { gid: 0, pid: 0 },
  setidStored: () => void = () => {},
): void {
  const flags = n(1);
  const fh = n(10) >= 0 ? n(10) : undefined;
  if (flags & SET_MODE && isSetidFile(fileMode(n(2))) && fs.stat(path).type === "file") setidStored();
  // The size goes first: it is the part that can be refused (ENOSPC, EFBIG, EISDIR), and
  // a refused setattr must leave mode, owner and times as they were.
  if (flags & SET_SIZE) fs.truncate(path, n(5), fh);
  // A truncate's kill bit (chown's the vfs applies itself, the same for every caller).
  if (flags & SET_SIZE && n(11) & KILL_SETID) killPrivileges(fs, owners, path, KILL_SETID, caller);
  if (flags & SET_MODE) fs.chmod(path, n(2));
  if (flags & (SET_UID | SET_GID)) {
    const asked = { uid: flags & SET_UID ? n(3) : -1, gid: flags & SET_GID ? n(4) : -1 };
    const owner = owners ? owners.fromKernel(asked) : asked;
    fs.chown(path, owner.uid, owner.gid);
  }
  if (flags & (SET_ATIME | SET_MTIME | SET_ATIME_NOW | SET_MTIME_NOW)) {
    fs.utimens(
      path,
      time(flags, SET_ATIME, SET_ATIME_NOW, n(6), n(7)),
      time(flags, SET_MTIME, SET_MTIME_NOW, n(8), n(9)),
    );
  }
}
