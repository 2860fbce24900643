/** What the mount's statfs answers: capacity from the quota, usage with buffered writes counted. */
import { NAME_MAX } from "@computer/vfs";

/** statfs numbers (4 KiB blocks). */
export interface FsStats {
  bsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
  namemax: number;
}

/** Size reported by statfs when the computer has no quota. */
export const DEFAULT_CAPACITY = 2 ** 40;

/** statfs from the vfs's usage and the bytes buffered writes will add once stored. */
export function statfsOf(usage: { usedBytes: number; quotaBytes: number | null }, buffered: number): FsStats {
  const bsize = 4096;
  const capacity = usage.quotaBytes ?? DEFAULT_CAPACITY;
  const blocks = Math.floor(capacity / bsize);
  const used = usage.usedBytes + buffered;
  const free = Math.max(0, blocks - Math.ceil(used / bsize));
  return { bsize, blocks, bfree: free, bavail: free, files: 1 << 30, ffree: 1 << 30, namemax: NAME_MAX };
}
