/**
 * The names buffered files are to be stored under (DirtyFile.path), kept current through
 * renames and hard links. A link moves a file's to its new name instead of storing the file
 * first: git links each new object to its name and then removes the temporary one, so the
 * object joins the grouped store of closed files (store-groups.ts) instead of a store alone.
 * The vfs keeps the link's ctime when the store dates the file's times from its last write
 * (contentChangeTime in vfs/src/time.ts), so nothing the link changed moves back.
 */
import type { DirtyFile } from "./dirty-file.ts";
import { isUnder } from "./meta-cache.ts";

/** The store paths of a write-back's dirty files (its map, by inode). */
export class StorePaths {
  private readonly files: ReadonlyMap<number, DirtyFile>;

  constructor(files: ReadonlyMap<number, DirtyFile>) {
    this.files = files;
  }

  /** After a rename of a file (or, with `tree`, a directory) from `from` to `to`. */
  renamed(from: string, to: string, tree: boolean): void {
    for (const file of this.files.values()) {
      if (file.path === from) file.path = to;
      else if (tree && isUnder(file.path, from)) file.path = to + file.path.slice(from.length);
    }
  }

  /** After a new name `path` of `ino` (a hard link): its buffered writes are stored under it. */
  linked(ino: number, path: string): void {
    const file = this.files.get(ino);
    if (file) file.path = path;
  }

  /** Whether `ino`'s buffered writes are to be stored under `path` (which must not go before they are). */
  storesAt(ino: number, path: string): boolean {
    return this.files.get(ino)?.path === path;
  }
}
