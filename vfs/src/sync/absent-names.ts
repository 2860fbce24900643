/**
 * Which paths of a batch are known to be absent on the receiver, found with one query per
 * directory instead of one lookup per path: a batch of new files (a build output, `npm
 * install`) then costs no lookup per file before it is created; the queue of new nodes asks
 * for every directory it puts entries in, even one with a single new name, so a directory with
 * two or three of them costs one query, not one per name. Read below the Vfs API (the
 * `dirents` table), like state.ts reads chunks and xattrs. The answer is only valid until the
 * merge changes the tree anywhere else than at the change's own path: it calls `clear()` then.
 */
import type { LocalSide } from "./local.ts";
import { baseName, parentOf } from "./state.ts";
import type { SyncChange } from "./wire.ts";

/**
 * Directories with fewer new-looking entries than this are not worth a query for a path that
 * may exist (it is read anyway); the queue's check passes 1.
 */
const MIN_NAMES = 4;

/** Absent names of one batch, per parent directory (computed lazily). */
export class AbsentNames {
  readonly #local: LocalSide;
  /** Parent → names of the batch's non-deletions below it. */
  readonly #names = new Map<string, string[]>();
  /** Parent → names known absent there. */
  readonly #absent = new Map<string, Set<string>>();

  constructor(local: LocalSide, changes: readonly SyncChange[]) {
    this.#local = local;
    for (const change of changes) {
      if (!change.stat || change.path === "/") continue;
      const parent = parentOf(change.path);
      const names = this.#names.get(parent);
      if (names) names.push(baseName(change.path));
      else this.#names.set(parent, [baseName(change.path)]);
    }
  }

  /**
   * True when nothing exists at `path`. The caller guarantees that its parent is a real
   * directory (no symlink on the way), whose inode it may pass as `parentIno`; false means
   * "not known", not "present" — unless `minNames` is 1: a directory is then always looked up
   * (one query for all the batch's names in it), and false means present.
   */
  has(path: string, parentIno?: number, minNames = MIN_NAMES): boolean {
    const parent = parentOf(path);
    let absent = this.#absent.get(parent);
    if (!absent) {
      const names = this.#names.get(parent) ?? [];
      if (names.length < minNames) return false;
      absent = new Set(names);
      const { vfs, sql } = this.#local;
      const ino = parentIno ?? vfs.lstat(parent).ino;
      for (const row of sql.exec<{ name: string }>(
        "SELECT name FROM dirents WHERE parent = ? AND name IN (SELECT value FROM json_each(?))",
        ino,
        JSON.stringify(names),
      )) {
        absent.delete(row.name);
      }
      this.#absent.set(parent, absent);
    }
    return absent.has(baseName(path));
  }

  /** Notes that `path` now exists (the merge created it). */
  created(path: string): void {
    this.#absent.get(parentOf(path))?.delete(baseName(path));
  }

  /** Forgets every answer: the merge created, moved or removed something elsewhere. */
  clear(): void {
    this.#absent.clear();
  }
}
