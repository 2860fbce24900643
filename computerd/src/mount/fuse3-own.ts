/**
 * Who owns a node the kernel just made (fuse3-ops.ts): the caller (kernel ids, mapped to the
 * vfs's by the owner map), with the group of a setgid directory, which a new subdirectory
 * also inherits the setgid bit of.
 */
import type { Stat } from "@computer/vfs";
import { SETID_BITS } from "./fuse3-kill-priv.ts";
import type { LocalFs } from "./local-fs.ts";
import { splitParent } from "./meta-cache.ts";
import type { OwnerMap } from "./owner-map.ts";

const S_ISGID = 0o2000;

/** Gives the new node at `path` to the caller; `setidStored` is told when a new file has setuid/setgid. */
export function ownNew(
  fs: LocalFs,
  owners: OwnerMap | undefined,
  path: string,
  caller: { uid: number; gid: number },
  setidStored: () => void,
): Stat {
  const { uid, gid } = owners ? owners.fromKernel(caller) : caller;
  const stat = fs.stat(path);
  const dir = fs.stat(splitParent(path).parent);
  const group = dir.mode & S_ISGID ? dir.gid : gid;
  if (stat.uid !== uid || stat.gid !== group) fs.chown(path, uid, group);
  if (stat.type === "dir" && dir.mode & S_ISGID && !(stat.mode & S_ISGID))
    fs.chmod(path, stat.mode | S_ISGID);
  if (stat.type === "file" && stat.mode & SETID_BITS) setidStored();
  return fs.stat(path);
}
