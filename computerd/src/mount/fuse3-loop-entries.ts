/**
 * Names the FUSE loop answers as found (native/loop-entries.h): a name JS answered with an
 * entry (a lookup that found it, a create, mknod, mkdir, symlink, link) is answered by the loop
 * when the kernel asks again, with the attributes of the loop's table, and handed to the
 * listener to count (NodeTable.looked). npm's extraction makes each file's directory again, and
 * the kernel asks for an existing name at every exclusive mkdir, even within its entry timeout.
 *
 * Exactness: the loop holds a name only as JS last answered it. JS drops a name before it
 * answers a request that removes or replaces it (unlink, rmdir, rename), the loop answers no
 * lookup while such a request is on its way to JS, and remote changes drop every name before
 * the kernel hears of them.
 */

/** What the loop is told. */
export interface LoopEntryHooks {
  putEntry?(parent: number, name: string, ino: number, entryTimeout: number): void;
  dropEntry?(parent: number, name: string): void;
  clearEntries?(): void;
}

/** The listener's side of the loop's names found. */
export class LoopEntries {
  private readonly hooks: LoopEntryHooks;
  private readonly entryTimeout: number;
  /** Whether a name was given since the last clear. */
  private given = false;

  constructor(hooks: LoopEntryHooks, entryTimeout: number) {
    this.hooks = hooks;
    this.entryTimeout = entryTimeout;
  }

  /** JS answers `name` in directory `parent` as inode `ino` (told before the answer). */
  found(parent: number, name: string, ino: number): void {
    if (!this.hooks.putEntry) return;
    this.given = true;
    this.hooks.putEntry(parent, name, ino, this.entryTimeout);
  }

  /** `name` in directory `parent` is about to go or to name another inode. */
  going(parent: number, name: string): void {
    if (this.given) this.hooks.dropEntry?.(parent, name);
  }

  /** Remote changes: the loop holds no name any more. */
  clear(): void {
    if (!this.given) return;
    this.given = false;
    this.hooks.clearEntries?.();
  }
}
