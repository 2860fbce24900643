/**
 * Open files whose last name goes (unlink, a rename over them, a create the loop answered that
 * lost its name): kept under a hidden name in the root (fuse3-orphans.ts) until their last
 * release, as the kernel's own `.fuse_hidden` files are, so their handles keep working.
 */
import type { Stat } from "@computer/vfs";
import type { LoopNames } from "./fuse3-loop-names.ts";
import { type NodeTable, ROOT_INO } from "./fuse3-nodes.ts";
import type { Orphans } from "./fuse3-orphans.ts";
import type { LocalFs } from "./local-fs.ts";

/** What hiding needs of the listener. */
export interface HidingContext {
  fs: LocalFs;
  nodes: NodeTable;
  orphans: Orphans;
  loopNames: LoopNames;
  /** The path of `name` in directory `parent` (ENOENT when the parent has no known name). */
  childPath(parent: number, name: string): string;
  /** The loop answers the next getattr of directory `ino`, whose names changed. */
  changedIn(ino: number): void;
  /** The kernel is told that `ino`'s attributes changed behind it. */
  changedBehind(ino: number): void;
}

/** The listener's hiding of open files. */
export function hiding(c: HidingContext) {
  /** Whether removing the name of `stat` would drop a file that is still open (it must be hidden instead). */
  function mustHide(stat: Stat): boolean {
    return stat.type !== "dir" && stat.nlink <= 1 && c.orphans.isOpen(stat.ino);
  }
  /** Keeps the open file `stat` (`name` in `parentIno`) under a hidden name in the root instead of
   * removing its last name; the node follows it, the bookkeeping only once the move succeeded. */
  function hide(parentIno: number, name: string, stat: Stat): void {
    const hiddenName = c.orphans.hiddenName(stat.ino);
    c.fs.rename(c.childPath(parentIno, name), `/${hiddenName}`);
    c.loopNames.added(ROOT_INO, hiddenName);
    c.changedIn(ROOT_INO);
    c.changedBehind(ROOT_INO);
    c.orphans.hide(stat.ino, hiddenName);
    c.nodes.renamed(stat.ino, { parent: parentIno, name }, { parent: ROOT_INO, name: hiddenName });
  }
  /** Removes a hidden file whose last release (and forget, if the kernel held its node) came. */
  function removeHidden(path: string | undefined): void {
    if (path === undefined) return;
    c.fs.unlink(path);
    c.changedBehind(ROOT_INO);
  }
  const released = (ino: number) => removeHidden(c.orphans.released(ino, c.nodes.has(ino)));
  return { mustHide, hide, removeHidden, released };
}
