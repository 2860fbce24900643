/**
 * Files and directories of the FUSE 3 backend that lost their last name while still in use.
 * An open file whose last name goes (unlink, rename over it) moves to a hidden name in the
 * root (`.fuse_hidden*`, which the sync client skips) until its last release: the kernel
 * keeps using it by node id, fstat shows nlink 0, and neither readdir nor lookup show the
 * hidden name, so the directory it left can still be removed. A removed directory that a
 * process still uses (its working directory) answers getattr with its last attributes and
 * nlink 0 until the kernel forgets it.
 */
import type { Stat } from "@computer/vfs";
import { ROOT_INO } from "./fuse3-nodes.ts";
import type { LocalFs } from "./local-fs.ts";
import { splitParent } from "./meta-cache.ts";

/**
 * Removes the hidden files a daemon that died with files open left in the root: their
 * descriptors died with it, so nothing can reach them any more. Returns how many went.
 */
export function removeStaleOrphans(fs: LocalFs): number {
  let removed = 0;
  for (const [name, dentry] of fs.readdir("/")) {
    if (dentry.type === "dir" || !isFuseHiddenName(`/${name}`)) continue;
    fs.unlink(`/${name}`);
    removed++;
  }
  return removed;
}

/** Bookkeeping of open counts, hidden files and removed directories (by vfs inode). */
export class Orphans {
  private readonly openCount = new Map<number, number>();
  private readonly hiddenPaths = new Map<number, string>();
  private readonly hiddenNames = new Set<string>();
  private readonly removedDirs = new Map<number, Stat>();
  /** Hidden files released while the kernel still held their node: removed when it forgets it. */
  private readonly releasedHidden = new Set<number>();
  private seq = 0;

  /** An open (or create) of `ino`. */
  opened(ino: number): void {
    this.openCount.set(ino, (this.openCount.get(ino) ?? 0) + 1);
  }

  /**
   * A release of `ino`; the hidden path to remove when it was the last one of a hidden file.
   * While the kernel still holds the node (`held`) the file stays hidden until `forgotten`: the
   * vfs hands a freed inode number out again, and a node id must not name a new file while the
   * kernel still knows the old one (its forget, which follows the release's answer, would then
   * count against the new one).
   */
  released(ino: number, held: boolean): string | undefined {
    const left = (this.openCount.get(ino) ?? 1) - 1;
    if (left > 0) {
      this.openCount.set(ino, left);
      return undefined;
    }
    this.openCount.delete(ino);
    if (!this.hiddenPaths.has(ino)) return undefined;
    if (held) {
      this.releasedHidden.add(ino);
      return undefined;
    }
    return this.unhide(ino);
  }

  /** Forgets a hidden file's name; answers it. */
  private unhide(ino: number): string | undefined {
    const path = this.hiddenPaths.get(ino);
    if (path === undefined) return undefined;
    this.hiddenPaths.delete(ino);
    this.hiddenNames.delete(path.slice(1));
    this.releasedHidden.delete(ino);
    return path;
  }

  isOpen(ino: number): boolean {
    return (this.openCount.get(ino) ?? 0) > 0;
  }

  /** A fresh hidden name (in the root) for `ino`, whose last name is going. */
  hiddenName(ino: number): string {
    return `.fuse_hidden${ino.toString(16)}${(this.seq++).toString(16)}`;
  }

  /** `ino` now lives under the hidden `name` (once the move there succeeded). */
  hide(ino: number, name: string): void {
    this.hiddenPaths.set(ino, `/${name}`);
    this.hiddenNames.add(name);
  }

  /** Whether `ino` lives on only under a hidden name (its link count shows as 0). */
  isHidden(ino: number): boolean {
    return this.hiddenPaths.has(ino);
  }

  /** Whether `name` in directory `parent` is a hidden name (neither listed nor found). */
  conceals(parent: number, name: string): boolean {
    return parent === ROOT_INO && this.hiddenNames.has(name);
  }

  /** `stat` is a directory just removed; the kernel may still ask for its attributes. */
  dirRemoved(stat: Stat): void {
    this.removedDirs.set(stat.ino, { ...stat, nlink: 0 });
  }

  /** The last attributes of a removed directory, if `ino` is one. */
  removedDir(ino: number): Stat | undefined {
    return this.removedDirs.get(ino);
  }

  /** The kernel dropped its last reference to `ino`: the hidden path to remove, if it was a released hidden file. */
  forgotten(ino: number): string | undefined {
    this.removedDirs.delete(ino);
    return this.releasedHidden.has(ino) ? this.unhide(ino) : undefined;
  }
}

/** True for names libfuse uses to keep unlinked-but-open files (the sync client may skip them). */
export function isFuseHiddenName(path: string): boolean {
  return splitParent(path).name.startsWith(".fuse_hidden");
}
