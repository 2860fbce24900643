/**
 * What the write-back tells the layer above it about attributes (LocalFs wires these to its
 * meta cache and from there to the FUSE loop's table and the kernel), and how it tells whether
 * a store changed what stat answers.
 */
import type { Stat } from "@computer/vfs";

/**
 * Called after an inode's content reached the vfs, with its attributes as the vfs left them
 * when the store says (else the cached ones are stale).
 */
export type FlushedListener = (ino: number, stored?: Stat) => void;

export interface WriteBackHooks {
  /**
   * An inode's buffered size or times (what `overlay` adds) changed; told before the request
   * that changed them is answered (a store tells the FlushedListener instead).
   */
  changed(ino: number): void;
  /** The cached attributes `overlay` applies to (the meta cache's), to tell what a store changed. */
  cachedStat(ino: number): Stat | undefined;
  /**
   * A store changed what stat answers (or that is unknown): the allocation differs from the
   * estimate, or a failure dropped writes. A kernel that caches attributes must drop them.
   */
  changedByStore(ino: number): void;
  /**
   * A closed file was stored in the background: what stat answers is its cached attributes
   * again (if cached), which a FUSE loop may answer getattrs with.
   */
  stored(ino: number): void;
}

export const NO_HOOKS: WriteBackHooks = {
  changed: () => {},
  cachedStat: () => undefined,
  changedByStore: () => {},
  stored: () => {},
};

/** Whether `before` and `after` show the same size, 512-byte blocks and times (both known). */
export function sameShown(before: Stat | undefined, after: Stat | undefined): boolean {
  return (
    before !== undefined &&
    after !== undefined &&
    before.size === after.size &&
    Math.ceil(before.allocated / 512) === Math.ceil(after.allocated / 512) &&
    before.mtime.sec === after.mtime.sec &&
    before.mtime.nsec === after.mtime.nsec &&
    before.ctime.sec === after.ctime.sec &&
    before.ctime.nsec === after.ctime.nsec
  );
}
