/**
 * Attributes as the fuse3 addon takes them: 14 numbers per inode (ino, mode with type bits,
 * nlink, uid, gid, rdev, size, 512-byte blocks, atime, mtime, ctime as seconds and
 * nanoseconds), with the owner map applied and nlink 0 for a file only a hidden name keeps.
 */
import type { Stat } from "@computer/vfs";
import { TYPE_BITS } from "@computer/vfs/mode-bits";
import type { OwnerMap } from "./owner-map.ts";

/** Writes the kernel's view of `stat` into `into` at `at`. */
export function fillAttributes(
  into: Float64Array,
  at: number,
  stat: Stat,
  owners: OwnerMap | undefined,
  hidden: boolean,
): void {
  const kernel = owners ? owners.toKernel(stat) : stat;
  into[at] = stat.ino;
  into[at + 1] = TYPE_BITS[stat.type] | stat.mode;
  into[at + 2] = hidden ? 0 : stat.nlink;
  into[at + 3] = kernel.uid;
  into[at + 4] = kernel.gid;
  into[at + 5] = stat.rdev;
  into[at + 6] = stat.size;
  into[at + 7] = Math.ceil(stat.allocated / 512);
  into[at + 8] = stat.atime.sec;
  into[at + 9] = stat.atime.nsec;
  into[at + 10] = stat.mtime.sec;
  into[at + 11] = stat.mtime.nsec;
  into[at + 12] = stat.ctime.sec;
  into[at + 13] = stat.ctime.nsec;
}
