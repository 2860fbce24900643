/**
 * Directories whose names the FUSE loop holds, so it answers the lookup of a name that does not
 * exist there itself (native/loop-names.h): a new file's lookup before its create, and the
 * second one of an exclusive create (npm's; the kernel revalidates even a cached miss then).
 *
 * Exactness: the loop may hold more names than a directory has (removed since: such a lookup
 * comes here), never fewer. JS gives it a directory's complete listing when it answered a miss
 * there itself, or an empty one for a directory it just made, and every name a request adds
 * (create, mknod, mkdir, symlink, link, rename) before answering that request; remote changes
 * drop every directory before the kernel hears of them. A change of names in a directory holds
 * the kernel's lock of it until answered, so no lookup there overtakes one.
 *
 * The names found the loop answers again (fuse3-loop-entries.ts) are told through here too: each
 * entry answered, each name about to go, and remote changes.
 */
import { LoopEntries, type LoopEntryHooks } from "./fuse3-loop-entries.ts";

/** What the loop is told. */
export interface LoopNameHooks extends LoopEntryHooks {
  holdNames?(ino: number, names: string[], negativeTimeout: number): void;
  holdsNames?(ino: number): boolean;
  addName?(ino: number, name: string): void;
  dropNames?(ino: number): void;
  clearNames?(): void;
}

/** Directories with more names are left to JS (giving them to the loop costs more than it saves). */
const LISTING_MAX = 4096;

/** The listener's side of the loop's names. */
export class LoopNames {
  private readonly hooks: LoopNameHooks;
  private readonly negativeTimeout: number;
  /** Directories given since the last clear (the loop may have dropped some): the others cost nothing. */
  private readonly given = new Set<number>();
  /** The names found the loop answers again. */
  private readonly found: LoopEntries;

  constructor(hooks: LoopNameHooks, negativeTimeout: number, entryTimeout: number) {
    this.hooks = hooks;
    this.negativeTimeout = negativeTimeout;
    this.found = new LoopEntries(hooks, entryTimeout);
  }

  /**
   * JS answered a miss in directory `ino`, whose complete listing is `names`: the loop answers
   * the next ones there (unless it already holds it, or it is large).
   */
  missed(ino: number, listing: () => ReadonlyMap<string, unknown>): void {
    if (!this.hooks.holdNames || this.hooks.holdsNames?.(ino)) return;
    const names = listing();
    if (names.size > LISTING_MAX) return;
    this.given.add(ino);
    this.hooks.holdNames(ino, [...names.keys()], this.negativeTimeout);
  }

  /** Directory `ino` was just made: it has no names yet. */
  made(ino: number): void {
    if (!this.hooks.holdNames) return;
    this.given.add(ino);
    this.hooks.holdNames(ino, [], this.negativeTimeout);
  }

  /** Directory `ino` was just made by the loop, which holds it with the names it added since. */
  madeByLoop(ino: number): void {
    if (this.hooks.holdNames) this.given.add(ino);
  }

  /**
   * A request adds `name` to directory `ino`, or finds it there: told before it is answered.
   * `child`: the inode the answer's entry names (the loop answers its next lookups).
   */
  added(ino: number, name: string, child?: number): void {
    if (this.given.has(ino)) this.hooks.addName?.(ino, name);
    if (child !== undefined) this.found.found(ino, name, child);
  }

  /** `name` in directory `ino` (told to `added` already) is answered as inode `child`. */
  answered(ino: number, name: string, child: number): void {
    this.found.found(ino, name, child);
  }

  /** `name` in directory `ino` is about to go or to name another inode (unlink, rmdir). */
  going(ino: number, name: string): void {
    this.found.going(ino, name);
  }

  /** A rename or exchange of `name` in `ino` and `newName` in `newIno` is about to change both. */
  renaming(ino: number, name: string, newIno: number, newName: string): void {
    this.found.going(ino, name);
    this.found.going(newIno, newName);
  }

  /** Directory `ino` is gone (removed, replaced, forgotten). */
  dropped(ino: number): void {
    if (this.given.delete(ino)) this.hooks.dropNames?.(ino);
  }

  /** Remote changes: the loop holds no directory and no name found any more. */
  clear(): void {
    this.found.clear();
    if (this.given.size === 0) return;
    this.given.clear();
    this.hooks.clearNames?.();
  }
}
