/**
 * The per-database context every operation runs in: the store, the injected
 * seams (clock, sha-256) and the current operation's revision. `mutate()` makes
 * one operation one transaction with one revision.
 */
import type { DirectoryCache } from "./dir-cache.ts";
import { FsError } from "./errors.ts";
import type { NodeRow, Store } from "./store.ts";
import { fromMs, laterTime } from "./time.ts";
import type { Timespec } from "./types.ts";
import type { UsageCache } from "./usage-cache.ts";

/** The seams a host injects; the vfs core imports neither `node:*` nor `cloudflare:*`. */
export interface VfsOptions {
  /** Hex sha-256 of the bytes (node:crypto in node and in workerd with nodejs_compat). */
  sha256(data: Uint8Array): string;
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?(): number;
  /** Owner of files created without an explicit owner (default root: 0/0). */
  owner?: { uid: number; gid: number };
  /**
   * Directories by name in memory (dir-cache.ts): only for a database that nothing but this
   * vfs changes and whose owner clears it after every rollback the vfs does not see (an outer
   * transaction that fails), as the mount's mirror does.
   */
  directoryCache?: DirectoryCache;
  /** The used bytes and the quota in memory (usage-cache.ts), on the same terms as `directoryCache`. */
  usageCache?: UsageCache;
}

/** Shared state of one open vfs. */
export class Context {
  readonly store: Store;
  readonly sha256: (data: Uint8Array) => string;
  readonly nowMs: () => number;
  readonly owner: { uid: number; gid: number };
  private depth = 0;
  private opRev: number | undefined;
  private lastClock: Timespec = { sec: 0, nsec: 0 };
  /**
   * Nodes whose attributes the current (or last) operation changed besides what it returns, as
   * it left them: directories whose entries changed, and a file whose link count moved.
   */
  readonly touchedNodes = new Map<number, NodeRow>();
  /** Told when an operation takes a new revision (see Vfs.onRevision). */
  readonly revisionListeners = new Set<(rev: number) => void>();
  /**
   * The paths the running operation changed (true: deleted), latest wins, as the feed keeps
   * them: written together as it ends, one statement instead of one per path.
   */
  private readonly changes = new Map<string, boolean>();

  constructor(store: Store, options: VfsOptions) {
    this.store = store;
    this.sha256 = options.sha256;
    this.nowMs = options.now ?? Date.now;
    this.owner = options.owner ?? { uid: 0, gid: 0 };
  }

  /** The time `at` runs its operations at (undefined: the clock's). */
  private pinned: Timespec | undefined;

  /**
   * Runs `fn` with every time it stamps being `time`: a change its maker answered and dated
   * before the vfs made it (the FUSE loop's unlinks). The clock's own order goes on after it.
   */
  at<T>(time: Timespec, fn: () => T): T {
    const before = this.pinned;
    this.pinned = this.given(time);
    try {
      return fn();
    } finally {
      this.pinned = before;
    }
  }

  /**
   * Answers `time`, a time its maker stamped by another clock (the FUSE loop's, with ns where
   * this one has ms), after which this clock's own times go on: a write after the loop's create
   * of the file must not be dated before it (relatime compares them).
   */
  given(time: Timespec): Timespec {
    this.lastClock = laterTime(this.lastClock, time);
    return time;
  }

  /** The current time; strictly increasing within this process so mtime changes with every write. */
  clock(): Timespec {
    if (this.pinned) return this.pinned;
    const now = fromMs(this.nowMs());
    const last = this.lastClock;
    if (now.sec < last.sec || (now.sec === last.sec && now.nsec <= last.nsec)) {
      const nsec = last.nsec + 1;
      this.lastClock = nsec > 999_999_999 ? { sec: last.sec + 1, nsec: 0 } : { sec: last.sec, nsec };
    } else {
      this.lastClock = now;
    }
    return this.lastClock;
  }

  /** Runs one operation atomically; the first change it records assigns it a new revision. */
  mutate<T>(fn: () => T): T {
    return this.store.sql.transaction(() => {
      if (this.depth === 0) {
        this.touchedNodes.clear();
        this.changes.clear();
      }
      this.depth++;
      try {
        const result = fn();
        if (this.depth === 1) this.writeChanges();
        return result;
      } catch (err) {
        // Rolled back: a directory this operation created (and cached by name) may be gone, and
        // the used bytes it charged are the old ones again.
        this.store.forgetCached();
        if (this.depth === 1) this.changes.clear();
        throw err;
      } finally {
        this.depth--;
        if (this.depth === 0) this.opRev = undefined;
      }
    });
  }

  /** The revision of the running operation (assigned on first use). */
  rev(): number {
    if (this.opRev === undefined) {
      const rev = this.store.addMeta("rev", 1);
      this.opRev = rev;
      for (const listener of this.revisionListeners) listener(rev);
    }
    return this.opRev;
  }

  /** The last committed revision. */
  currentRev(): number {
    return this.store.metaValue("rev") ?? 0;
  }

  /** Records that `path` now exists with new state. */
  changed(path: string): void {
    this.record(path, false);
  }

  /** Records that `path` no longer exists. */
  deleted(path: string): void {
    this.record(path, true);
  }

  /** Inside an operation the record waits for its end (writeChanges); outside it is written at once. */
  private record(path: string, deleted: boolean): void {
    const rev = this.rev();
    if (this.depth === 0) this.store.recordChanges([[path, deleted]], rev);
    else this.changes.set(path, deleted);
  }

  /** Writes the operation's change records, then forgets them. */
  private writeChanges(): void {
    if (this.changes.size === 0) return;
    this.store.recordChanges([...this.changes], this.rev());
    this.changes.clear();
  }

  /** Adjusts used bytes by `delta`, failing with ENOSPC when growth passes the quota. */
  charge(delta: number, syscall: string, path: string): void {
    if (delta === 0) return;
    const { used, quota } = this.store.addUsed(delta);
    if (delta > 0 && quota !== undefined && used > quota) throw new FsError("ENOSPC", syscall, path);
  }

  /** A fresh inode row with default owner and `now` for all times. */
  newNode(type: NodeRow["type"], mode: number, extra: Partial<NodeRow> = {}): Omit<NodeRow, "ino"> {
    const now = this.clock();
    return {
      type,
      mode,
      uid: this.owner.uid,
      gid: this.owner.gid,
      nlink: type === "dir" ? 2 : 1,
      size: 0,
      rdev: 0,
      allocated: 0,
      target: null,
      atime_s: now.sec,
      atime_ns: now.nsec,
      mtime_s: now.sec,
      mtime_ns: now.nsec,
      ctime_s: now.sec,
      ctime_ns: now.nsec,
      ...extra,
    };
  }
}
