/**
 * Whether an open may keep the kernel's page cache of a file (FOPEN_KEEP_CACHE). The cache
 * is kept while the file's size and mtime (to the millisecond) are what the kernel last saw:
 * at an open, or after a change the kernel made itself — its writes go through its page cache,
 * and it cuts the pages of a truncate or a copy_file_range target on its own. Changes from
 * elsewhere (the sync applying the DO's) are notified exactly (mount.invalidate); a size or
 * mtime the kernel did not see (writes a failed flush dropped) still drops the cache at the
 * next open.
 */
import type { Stat } from "@computer/vfs";

const O_ACCMODE = 0o3;
const O_RDONLY = 0;

/** mtime to the millisecond: the part of a file's times that moves with its content. */
function mtimeMs(stat: Stat): number {
  return stat.mtime.sec * 1000 + Math.floor(stat.mtime.nsec / 1e6);
}

/** The part of a file's attributes that moves with its content. */
function versionOf(stat: Stat): string {
  return `${mtimeMs(stat)}:${stat.size}`;
}

/** Told whenever what the kernel's cache of a file holds changes (undefined: nothing known). */
export type SeenListener = (ino: number, seen: { mtimeMs: number; size: number } | undefined) => void;

/** The page-cache policy of one mount: "auto" as above, or "keep" (always keep). */
export class PageCachePolicy {
  private readonly always: boolean;
  private readonly seen = new Map<number, string>();
  /** Handles that may write, with their inode: their changes reach the kernel's cache. */
  private readonly writers = new Map<number, number>();

  /** The FUSE loop's copy (it answers read-only opens that keep the cache: native/fuse3.c ll_open). */
  private readonly onSeen: SeenListener;

  constructor(mode: "auto" | "keep", onSeen: SeenListener = () => {}) {
    this.always = mode === "keep";
    this.onSeen = onSeen;
  }

  /** An open of `stat` with `flags` got handle `fh`: answers whether the kernel keeps its cache. */
  opened(stat: Stat, fh: number, flags: number): boolean {
    const version = versionOf(stat);
    const keep = this.always || this.seen.get(stat.ino) === version;
    this.see(stat, version);
    if ((flags & O_ACCMODE) !== O_RDONLY) this.writers.set(fh, stat.ino);
    return keep;
  }

  /** The kernel made a change to the file itself (a setattr, a copy into it): `stat` is what it saw. */
  changedByKernel(stat: Stat): void {
    if (this.seen.has(stat.ino)) this.see(stat, versionOf(stat));
  }

  private see(stat: Stat, version: string): void {
    // Told every time, not only when it moved: the loop's copy is a table a collision may evict.
    this.seen.set(stat.ino, version);
    this.onSeen(stat.ino, { mtimeMs: mtimeMs(stat), size: stat.size });
  }

  /** True when `fh` may have written (a close of it ends a change the kernel made). */
  writes(fh: number): boolean {
    return this.writers.has(fh);
  }

  released(fh: number): void {
    this.writers.delete(fh);
  }

  /** True when a handle of `ino` that may write is open. */
  writing(ino: number): boolean {
    for (const of of this.writers.values()) if (of === ino) return true;
    return false;
  }

  /** The inode is gone from the kernel (forgotten): nothing of it is cached any more. */
  forgotten(ino: number): void {
    if (this.seen.delete(ino)) this.onSeen(ino, undefined);
  }
}
