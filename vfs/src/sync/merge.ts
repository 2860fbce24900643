/**
 * Applying one change of a batch: a three-way merge of the local state L, the incoming state I
 * and the sender's base B (what the sender believes L is). L = I: nothing to do. L = B: fast-
 * forward to I. Otherwise both sides changed the path: the conflict rule of conflict.ts decides,
 * the loser is kept as a copy. Directories go only when empty: the sender lists every entry it
 * knew below one as a deletion of its own, so whatever is left was never seen by the sender.
 */

import { isFsError } from "../errors.ts";
import { ROOT_INO } from "../limits.ts";
import { childPath } from "../paths.ts";
import type { Stat } from "../types.ts";
import { AbsentNames } from "./absent-names.ts";
import { makeDirectory, materialize, removeNode } from "./apply.ts";
import { CONFLICT_WINNER, conflictCopyPath } from "./conflict.ts";
import { restoreAll, timesToRestore } from "./dir-times.ts";
import { involvesLinks, settleLink } from "./hard-links.ts";
import type { BaseRow } from "./ledger.ts";
import { dirAttributes, type LocalSide } from "./local.ts";
import { NewNodes } from "./new-nodes.ts";
import {
  baseName,
  type PathState,
  parentOf,
  readChild,
  readInode,
  sameContent,
  sameDirBesideMtime,
  stateOf,
} from "./state.ts";
import type { ConflictReason, SyncChange, SyncConflict } from "./wire.ts";

/** The application of one batch's changes (inside the batch's transaction). */
export class Merge {
  readonly conflicts: SyncConflict[] = [];
  /** Paths this batch left holding exactly the state agreed on (see Ledger.recordEchoes). */
  readonly echoes: string[] = [];
  private readonly local: LocalSide;
  /** Whether this side's own version wins conflicts. */
  private readonly localWins: boolean;
  /**
   * Paths known to be real directories in this batch, with their inode where looked up
   * (forgotten whenever something is removed).
   */
  private readonly dirs = new Map<string, number | undefined>();
  /** The batch's paths known to be absent (forgotten whenever the tree changes elsewhere). */
  private readonly absent: AbsentNames;
  /** Paths the batch names with a state (not deletions). */
  private readonly stated = new Set<string>();
  /**
   * Directories holding entries of the batch, with the times each must keep: what its own change
   * left (or what it had, when the batch does not name it). Adding or removing the entries below
   * stamps "now" on a directory; `restoreDirTimes` puts these back once all entries are in.
   */
  private readonly dirTimes = new Map<string, Stat>();

  /** The batch's `ack`: the latest of our batches the sender had applied when it built this one. */
  private readonly ack: string | undefined;
  /** Paths of our batches the sender applied after building this one (read when first needed). */
  private newer: Set<string> | undefined;
  /** Parents of the batch's stated paths (computed when first needed). */
  private parents: Set<string> | undefined;
  /** New nodes queued to be created together (new-nodes.ts). */
  private readonly created: NewNodes;
  /** Directories changed only in their times, agreed on at the next flush. */
  private readonly agreed: BaseRow[] = [];

  /** `changes`: the whole batch (its blobs stored already); `ack`: the batch's `ack`. */
  constructor(local: LocalSide, changes: readonly SyncChange[] = [], ack?: string) {
    this.local = local;
    this.ack = ack;
    this.localWins = local.side === CONFLICT_WINNER;
    this.absent = new AbsentNames(local, changes);
    this.created = new NewNodes(local);
    for (const change of changes) if (change.stat) this.stated.add(change.path);
  }

  /** Makes `dir` keep the times it has now through the rest of the batch (see restoreDirTimes). */
  keepTimes(dir: string): void {
    this.rememberTimes(dir, false);
  }

  /** The times of `dir` now, if it is a directory (they are what it keeps through the batch). */
  private rememberTimes(dir: string, overwrite: boolean): void {
    if (!overwrite && this.dirTimes.has(dir)) return;
    const stat = this.dirStat(dir);
    if (stat?.type === "dir") this.dirTimes.set(dir, stat);
  }

  /** lstat of `dir` (undefined: nothing there), by inode when the batch found it already. */
  private dirStat(dir: string): Stat | undefined {
    const ino = dir === "/" ? ROOT_INO : this.dirs.get(dir);
    if (ino !== undefined) return readInode(this.local.sql, ino);
    try {
      return this.local.vfs.lstat(dir);
    } catch (err) {
      if (isFsError(err)) return undefined;
      throw err;
    }
  }

  /** The state at `path`, read from its parent's inode when the batch knows it as a real directory. */
  private readLocal(path: string): PathState | undefined {
    if (path === "/") return this.local.read(path);
    const dir = this.realDirIno(parentOf(path));
    return dir === undefined ? undefined : readChild(this.local.sql, dir, baseName(path));
  }

  /**
   * Gives every directory that held entries of the batch the times remembered for it, so it
   * ends with the sender's mtime (or its own, when the batch did not change it) rather than the
   * moment its entries were applied. A directory that moved or went is skipped.
   */
  restoreDirTimes(): void {
    restoreAll(
      this.local,
      this.dirTimes,
      (dir) => (dir === "/" ? ROOT_INO : this.dirs.get(dir)),
      (dir) => this.dirStat(dir),
    );
  }

  /** Gives `dir` the times remembered for it, if it is still the same directory. */
  private restoreTimes(dir: string): void {
    const times = timesToRestore(dir, this.dirTimes.get(dir), this.dirStat(dir));
    if (times) this.local.vfs.utimesInodes([times]);
  }

  /** Applies one change (call `flush`, then `restoreDirTimes`, after the last). */
  apply(change: SyncChange): void {
    if (this.queueNew(change) || this.onlyDirTimes(change)) return;
    this.flush();
    const path = change.path;
    // The first entry of the batch below a directory: what it holds now it keeps (until its own
    // change, applied after its deleted entries but before its new ones, says otherwise).
    if (path !== "/") this.rememberTimes(parentOf(path), false);
    // A directory whose entries the batch already removed is judged as the batch found it: their
    // removal stamped its mtime, but that is the sender's change, not this side's.
    this.restoreTimes(path);
    this.applyChange(change);
    if (this.dirTimes.has(path) || (this.stated.has(path) && this.hasEntriesInBatch(path))) {
      this.rememberTimes(path, true);
    }
  }

  /**
   * A directory this side holds as the sender's base, changed there only in its times (entries
   * came or went below it, as while `npm install` fills it batch after batch): its times are
   * set with the batch's other directories at the end (restoreDirTimes), so nothing is written
   * now and the queue needs no flush. True when handled.
   */
  private onlyDirTimes(change: SyncChange): boolean {
    const path = change.path;
    const incoming = stateOf(change);
    if (path === "/" || incoming?.stat.type !== "dir" || change.base === "" || this.dirTimes.has(path))
      return false;
    const current = this.readLocal(path);
    if (current?.stat.type !== "dir" || this.local.fp(current) !== change.base) return false;
    if (!sameDirBesideMtime(current, incoming)) return false;
    this.dirTimes.set(path, { ...current.stat, atime: incoming.stat.atime, mtime: incoming.stat.mtime });
    // Agreed with the queue's next flush: one statement for all (nothing reads the base before).
    this.agreed.push({ path, fp: this.local.fp(incoming), dir: dirAttributes(incoming) });
    this.echoes.push(path);
    return true;
  }

  /**
   * Queues a node this side does not have (no base, no links, no xattrs) whose parent is a real
   * directory or a queued one, to be created with the rest of the queue (new-nodes.ts); true
   * when queued. Whatever else the change needs goes the ordinary way.
   */
  private queueNew(change: SyncChange): boolean {
    const path = change.path;
    const incoming = stateOf(change);
    if (!incoming || path === "/" || change.base !== "" || this.dirTimes.has(path)) return false;
    if ((change.links?.length ?? 0) > 0 || (change.xattrs?.length ?? 0) > 0) return false;
    const parent = parentOf(path);
    if (!this.created.isQueuedDir(parent)) {
      const ino = this.realDirIno(parent);
      if (ino === undefined) return false;
      // One query per directory of the queue for all its new names (not one per name).
      if (!this.absent.has(path, ino, 1)) return false;
      this.rememberTimes(parent, false);
    }
    this.created.add(path, incoming, this.local.fp(incoming));
    if (incoming.stat.type === "dir") this.dirs.set(path, undefined);
    this.echoes.push(path);
    return true;
  }

  /**
   * The inode of `dir` when it and every directory above it are real directories now (no
   * symlink, nothing else), remembering those found: one lookup per directory a batch meets, none
   * where the vfs keeps a directory cache that knows it from an earlier batch. Reads only, so the
   * queue needs no flush for it.
   */
  private realDirIno(dir: string): number | undefined {
    if (dir === "/") return ROOT_INO;
    const known = this.dirs.get(dir);
    if (known !== undefined) return known;
    const above = this.realDirIno(parentOf(dir));
    if (above === undefined) return undefined;
    const ino = this.local.vfs.childDirectory(above, baseName(dir));
    if (ino === undefined) return undefined;
    this.dirs.set(dir, ino);
    return ino;
  }

  /**
   * Creates the queued new nodes. A created directory with entries in the batch keeps the times
   * it was created with (the sender's) through the rest of the batch, as restoreDirTimes says.
   */
  flush(): void {
    // The directories realDirIno found need no second lookup in createNodes.
    for (const [dir, stat] of this.created.flush(this.dirs)) {
      this.dirs.set(dir, stat.ino);
      if (this.hasEntriesInBatch(dir)) this.dirTimes.set(dir, stat);
    }
    if (this.agreed.length > 0) this.local.ledger.setBases(this.agreed.splice(0));
  }

  /** Whether the batch names a path directly below `dir`. */
  private hasEntriesInBatch(dir: string): boolean {
    this.parents ??= new Set([...this.stated].filter((p) => p !== "/").map(parentOf));
    return this.parents.has(dir);
  }

  private applyChange(change: SyncChange): void {
    const path = change.path;
    const incoming = stateOf(change);
    const fpIn = this.local.fp(incoming);
    if (fpIn === change.base && this.local.fp(this.local.read(path)) !== fpIn) {
      // The sender has nothing new here (a hard-linked name re-sent for its group, a marked
      // path, or a full listing): no conflict, this side's own change stands. Unless one of our
      // batches the sender had not applied yet agreed on the path (the sender's base is then
      // stale), the sender's base becomes ours and the path is marked, so the change goes out
      // against it (a deletion whose record was pruned here would otherwise never be sent).
      this.newer ??= new Set(this.local.ledger.committedAfter(this.ack));
      if (!this.newer.has(path)) {
        this.local.agree(path, incoming, fpIn);
        this.local.ledger.markDirty(path);
      }
      return;
    }
    if (incoming && path !== "/") {
      const target = this.prepareParents(path);
      if (target !== path) {
        // Our non-directory won over the peer's directory above `path`: its entry joins the copy.
        this.absent.clear();
        this.placeCopy(target, incoming, fpIn);
        this.local.agree(path, incoming, fpIn);
        this.local.ledger.markDirty(path);
        return;
      }
    }
    // Parents made real directories above: no need to check for a symlink among them again.
    const parent = parentOf(path);
    const parentIsDir = path !== "/" && (parent === "/" || this.dirs.has(parent));
    const current = parentIsDir && this.absent.has(path) ? undefined : this.readLocal(path);
    const fpLocal = this.local.fp(current);
    if (fpLocal === fpIn) {
      const regrouped = incoming !== undefined && this.place(change, incoming, fpIn, current, true);
      this.local.agree(path, incoming, fpIn);
      this.settled(path, regrouped);
      return;
    }
    const removesDir = current?.stat.type === "dir" && incoming?.stat.type !== "dir";
    let unchanged = fpLocal === change.base;
    if (path === "/" && change.base === "" && current && incoming) {
      // Both roots exist from the start, so a root the sender never agreed on is no conflict: the
      // one changed last wins on both sides (crossing batches must not swap them); ours, if later,
      // goes back to the peer.
      const a = incoming.stat.mtime;
      const b = current.stat.mtime;
      unchanged = a.sec > b.sec || (a.sec === b.sec && a.nsec >= b.nsec);
      if (!unchanged) {
        this.local.agree(path, incoming, fpIn);
        this.local.ledger.markDirty(path);
        return;
      }
    }
    if (unchanged && (!removesDir || this.isEmptyDir(path))) {
      const regrouped = this.fastForward(change, current, incoming, fpIn);
      if (incoming) this.absent.created(path);
      this.local.agree(path, incoming, fpIn);
      this.settled(path, regrouped);
      return;
    }
    // Conflicts create copies and move things: earlier answers about absent names go.
    this.absent.clear();
    // Not reported: two directories that differ only in mtime (both sides changed entries).
    const quiet = sameDirBesideMtime(current, incoming);
    if (this.localWins) this.keepLocal(path, current, incoming, fpIn, quiet);
    else this.takeIncoming(change, current, fpLocal, incoming, fpIn, quiet);
  }

  /**
   * Makes `path` hold `incoming` (`holds`: it already does), through a hard link to a local name
   * of its group when the change names one (hard-links.ts). True when names were regrouped.
   */
  private place(
    change: SyncChange,
    incoming: PathState,
    fpIn: string,
    current: PathState | undefined,
    holds = false,
  ): boolean {
    const write = (now: PathState | undefined) => materialize(this.local.vfs, change.path, incoming, now);
    if (incoming.stat.type === "dir" || !involvesLinks(change, current)) {
      if (!holds) write(current);
      return false;
    }
    // Joining the group may relink its other names where they are (unlink + link): each keeps
    // its name, so its directory keeps the times it has (README: "Known limits").
    for (const name of change.links ?? []) this.keepTimes(parentOf(name));
    return settleLink(this.local, change, fpIn, current, holds, write);
  }

  /**
   * `path` now holds the state agreed on: an echo. If the merge rearranged its group beyond what
   * the change says, it is also marked to be sent back with its group as it is now (against the
   * state the peer sent): crossing batches can otherwise leave the sides with swapped groups.
   */
  private settled(path: string, regrouped: boolean): void {
    if (regrouped) this.local.ledger.markDirty(path);
    this.echoes.push(path);
  }

  private report(path: string, reason: ConflictReason, copy?: string): void {
    if (this.conflicts.some((c) => c.path === path && c.copy === copy)) return;
    this.conflicts.push(
      copy === undefined
        ? { path, winner: CONFLICT_WINNER, reason }
        : { path, winner: CONFLICT_WINNER, copy, reason },
    );
  }

  /** Brings the path from the base to `incoming`; true when names were regrouped (hard-links.ts). */
  private fastForward(
    change: SyncChange,
    current: PathState | undefined,
    incoming: PathState | undefined,
    fpIn: string,
  ): boolean {
    const path = change.path;
    if (current && (!incoming || current.stat.type !== incoming.stat.type)) {
      this.dirs.clear();
      this.absent.clear();
    }
    let regrouped = false;
    if (incoming) regrouped = this.place(change, incoming, fpIn, current);
    else if (current) removeNode(this.local.vfs, path, current);
    if (current?.stat.type === "dir" && incoming?.stat.type !== "dir") this.local.ledger.clearBaseBelow(path);
    return regrouped;
  }

  /** This side wins: its version stays; the peer's is kept as a copy; the path is re-sent. */
  private keepLocal(
    path: string,
    current: PathState | undefined,
    incoming: PathState | undefined,
    fpIn: string,
    quiet: boolean,
  ): void {
    let reason: ConflictReason;
    let copy: string | undefined;
    if (!incoming) reason = "delete";
    else if (!current) reason = incoming.stat.type === "dir" ? "attributes" : "content";
    else if (incoming.stat.type === "dir") reason = current.stat.type === "dir" ? "attributes" : "content";
    else reason = sameContent(current, incoming) ? "attributes" : "content";
    if (incoming && reason === "content") copy = this.placeCopy(conflictCopyPath(path, fpIn), incoming, fpIn);
    this.local.agree(path, incoming, fpIn);
    this.local.ledger.markDirty(path);
    if (!quiet) this.report(path, reason, copy);
  }

  /** The peer wins: this side's version moves aside (or stays, for a directory with unsynced entries). */
  private takeIncoming(
    change: SyncChange,
    current: PathState | undefined,
    fpLocal: string,
    incoming: PathState | undefined,
    fpIn: string,
    quiet: boolean,
  ): void {
    const path = change.path;
    let reason: ConflictReason = "delete";
    let copy: string | undefined;
    let now = current;
    this.dirs.clear();
    if (current && current.stat.type !== "dir") {
      if (incoming && sameContent(current, incoming)) reason = "attributes";
      else {
        copy = this.moveAside(path, current, fpLocal);
        reason = "content";
        now = undefined;
      }
    } else if (current) {
      reason = "attributes";
      if (incoming?.stat.type !== "dir") {
        if (this.isEmptyDir(path)) {
          this.local.vfs.rmdir(path);
          now = undefined;
        } else if (!incoming) {
          // The peer deleted a directory that still holds our unsynced entries: it stays.
          this.local.agree(path, undefined, "");
          this.local.ledger.markDirty(path);
          this.report(path, "kept");
          return;
        } else {
          copy = this.moveAside(path, current, fpLocal);
          reason = "content";
          now = undefined;
        }
        this.local.ledger.clearBaseBelow(path);
      }
    }
    if (incoming) this.place(change, incoming, fpIn, now);
    this.local.agree(path, incoming, fpIn);
    if (!quiet) this.report(path, reason, copy);
  }

  /** Renames our losing version to its conflict copy (a free name); returns the copy's path. */
  private moveAside(path: string, current: PathState, fp: string): string {
    for (let n = 1; ; n++) {
      const copy = conflictCopyPath(path, fp, n);
      const there = this.local.read(copy);
      if (there && current.stat.type !== "dir" && this.local.fp(there) === fp) {
        removeNode(this.local.vfs, path, current);
        return copy;
      }
      if (!there) {
        this.local.vfs.rename(path, copy);
        return copy;
      }
    }
  }

  /** Writes the peer's losing version at its conflict copy path (or reuses an identical one). */
  private placeCopy(copyPath: string, state: PathState, fp: string): string {
    for (let n = 1; ; n++) {
      const copy = n === 1 ? copyPath : `${copyPath}-${n}`;
      const there = this.local.read(copy);
      if (there && this.local.fp(there) === fp) return copy;
      if (!there) {
        materialize(this.local.vfs, copy, state, undefined);
        return copy;
      }
    }
  }

  /**
   * Makes every parent of `path` a real directory and returns where the entry goes: `path`, or,
   * when this side's non-directory wins over the peer's directory, the same entry under that
   * directory's conflict copy.
   */
  private prepareParents(path: string): string {
    const names = path.split("/").slice(1, -1);
    let prefix = "";
    for (const [i, name] of names.entries()) {
      prefix = childPath(prefix === "" ? "/" : prefix, name);
      if (this.dirs.has(prefix)) continue;
      const here = this.local.read(prefix);
      if (here?.stat.type === "dir") {
        this.dirs.set(prefix, undefined);
        continue;
      }
      this.absent.clear();
      if (!here) {
        this.rememberTimes(parentOf(prefix), false);
        makeDirectory(this.local.vfs, prefix, this.local.ledger.baseRow(prefix)?.dir ?? null);
        this.dirs.set(prefix, undefined);
        continue;
      }
      this.dirs.clear();
      if (this.localWins) {
        const copy = conflictCopyPath(prefix, this.local.ledger.base(prefix));
        this.report(prefix, "content", copy);
        const rest = names.slice(i + 1).join("/");
        const leaf = path.slice(path.lastIndexOf("/") + 1);
        return this.prepareParents(rest === "" ? `${copy}/${leaf}` : `${copy}/${rest}/${leaf}`);
      }
      const copy = this.moveAside(prefix, here, this.local.fp(here));
      this.report(prefix, "content", copy);
      makeDirectory(this.local.vfs, prefix, this.local.ledger.baseRow(prefix)?.dir ?? null);
    }
    return path;
  }

  private isEmptyDir(path: string): boolean {
    return this.local.vfs.readdir(path, { limit: 1 }).entries.length === 0;
  }
}
