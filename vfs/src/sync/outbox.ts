/**
 * The sending half of sync: reads this side's unsent local changes from its change feed
 * (after the cursor the peer has acknowledged) plus paths marked for re-sending, drops those
 * whose state the peer already has (echoes of what it sent us), adds unsynced parent
 * directories, and records the batch as in flight until the peer's answer is known.
 */
import { isLinked, otherNames } from "./hard-links.ts";
import { dirAttributes, type LocalSide } from "./local.ts";
import { contentBytes, type PathState, parentOf } from "./state.ts";
import { StateReader } from "./state-reader.ts";
import type { ApplyResult, SyncBatch, SyncChange } from "./wire.ts";

/** How big one batch may grow (each batch is one transaction on the receiver). */
export interface BatchLimits {
  /** Changes per batch. */
  maxChanges: number;
  /** Bytes of file content per batch (a single larger file still travels alone). */
  maxBytes: number;
  /** Feed entries examined per batch (bounds the work of an echo-only stretch). */
  maxScan: number;
  /**
   * Bytes of the changes themselves per batch (paths, symlink targets, chunk hashes, xattrs:
   * what the batch's message carries besides inline blobs; a single larger change still travels
   * alone), so a message stays far below a WebSocket's limit whatever `maxChanges` allows.
   */
  maxMetaBytes: number;
}

/** Defaults: a few hundred changes, 32 MiB of content or 4 MiB of metadata per transaction. */
export const DEFAULT_LIMITS: BatchLimits = {
  maxChanges: 500,
  maxBytes: 32 << 20,
  maxScan: 5000,
  maxMetaBytes: 4 << 20,
};

/** Fixed bytes a change's message takes besides its strings (stat fields, base fingerprint, keys). */
const CHANGE_OVERHEAD_BYTES = 300;
/** A string's JSON punctuation in a list: its quotes and the comma. */
const STRING_IN_LIST_BYTES = 3;
/** A chunk hash in a change's list: 64 hex digits. */
const CHUNK_HASH_BYTES = 64 + STRING_IN_LIST_BYTES;
/** An xattr's keys and punctuation besides its name and value. */
const XATTR_OVERHEAD_BYTES = 16;

/** About how many bytes `change` takes in a batch's message (JSON, xattr values as bytes). */
export function changeBytes(change: SyncChange): number {
  let bytes = CHANGE_OVERHEAD_BYTES + change.path.length + (change.target?.length ?? 0);
  bytes += (change.chunks?.length ?? 0) * CHUNK_HASH_BYTES;
  for (const x of change.xattrs ?? []) bytes += x.name.length + x.value.length + XATTR_OVERHEAD_BYTES;
  for (const link of change.links ?? []) bytes += link.length + STRING_IN_LIST_BYTES;
  return bytes;
}

/** A batch ready to send, and whether more is waiting behind it. */
export interface Outgoing {
  batch: SyncBatch;
  more: boolean;
}

/** Collects the changes of one batch. */
class Builder {
  readonly changes: SyncChange[] = [];
  readonly entries: [string, string, string | null][] = [];
  readonly dirty: [string, number][] = [];
  private readonly local: LocalSide;
  private readonly limits: BatchLimits;
  private readonly done = new Set<string>();
  private bytes = 0;
  private metaBytes = 0;
  scanned = 0;
  /** In a full listing every path is sent, agreed or not, so the receiver can spot deletions. */
  listAll = false;

  /** States and bases read a feed page at a time. */
  readonly reader: StateReader;

  constructor(local: LocalSide, limits: BatchLimits) {
    this.local = local;
    this.limits = limits;
    this.reader = new StateReader(local.sql, local.ledger);
  }

  private read(path: string): PathState | undefined {
    return this.reader.has(path) ? this.reader.state(path) : this.local.read(path);
  }

  private base(path: string): string {
    return this.reader.base(path) ?? this.local.ledger.base(path);
  }

  /**
   * Turns this batch into (the start of) a full listing. Paths already looked at but skipped as
   * agreed (re-send marks, parents) must now be listed too: only those added stay done.
   */
  startListing(): void {
    this.listAll = true;
    this.done.clear();
    for (const change of this.changes) this.done.add(change.path);
  }

  full(): boolean {
    return (
      this.changes.length >= this.limits.maxChanges ||
      this.bytes >= this.limits.maxBytes ||
      this.metaBytes >= this.limits.maxMetaBytes ||
      this.scanned >= this.limits.maxScan
    );
  }

  /**
   * Adds `path` if the peer lacks its current state (its unsynced parents first). `echoRev`:
   * the feed revision at which an applied batch of the peer left the path equal to its base;
   * when `rev` is still that, the path is the peer's own state echoed back and is not read.
   */
  consider(path: string, rev: number, echoRev?: number, marked = false): void {
    this.scanned++;
    if (this.done.has(path)) return;
    this.done.add(path);
    if (echoRev === rev && !this.listAll) return;
    const state = this.read(path);
    const fp = this.local.fp(state);
    // A marked path still holding what the peer sent us (a group rearranged here) goes out
    // against that very state: the peer has it, whatever a crossing batch made of our base.
    const base = marked && state && this.local.ledger.isEcho(path) ? fp : this.base(path);
    // A hard-linked name goes out even unchanged: a link, unlink or rename in its group put it
    // in the feed, and the peer learns the group from it (nlink and inode are not in fp). So
    // does a path marked for re-sending, deleted or not: an applied batch rearranged its group
    // here, or this side kept its version against the peer's, and the answer to our crossing
    // batch may since have made our base agree with it while the peer kept its own.
    if (fp === base && !this.listAll && !isLinked(state) && !marked) return;
    if (state && path !== "/") this.addParents(path, rev);
    this.add(path, rev, state, fp, base);
    // Whatever the peer has below a path that is no longer a directory goes too, in this same
    // batch: the peer removes a directory only once it is empty.
    if (state?.stat.type !== "dir" && this.reader.mayHaveBaseBelow(path)) {
      for (const row of this.local.ledger.baseBelow(path)) {
        if (this.done.has(row.path)) continue;
        this.done.add(row.path);
        this.add(row.path, rev, undefined, "", row.fp);
      }
    }
  }

  private addParents(path: string, rev: number): void {
    const parents: string[] = [];
    for (let p = parentOf(path); p !== "/" && !this.done.has(p); p = parentOf(p)) parents.push(p);
    for (const parent of parents.reverse()) {
      this.done.add(parent);
      const state = this.read(parent);
      const fp = this.local.fp(state);
      const base = this.base(parent);
      if (fp !== base || this.listAll) this.add(parent, rev, state, fp, base);
    }
  }

  private add(path: string, rev: number, state: PathState | undefined, fp: string, base: string): void {
    const change: SyncChange = { path, rev, base };
    if (state) {
      change.stat = state.stat;
      if (state.target !== undefined) change.target = state.target;
      if (state.chunks !== undefined) change.chunks = state.chunks;
      if (state.xattrs !== undefined) change.xattrs = state.xattrs;
      const links = otherNames(this.local, path, state);
      if (links) change.links = links;
    }
    this.changes.push(change);
    this.entries.push([path, fp, dirAttributes(state)]);
    this.bytes += contentBytes(state);
    this.metaBytes += changeBytes(change);
  }
}

/**
 * Whether the feed has pruned deletion records. Read from "0" the feed never says so (a new
 * reader missed nothing); "1/0:" is the same position (after nothing of revision 1, no floor)
 * written as a cursor that has seen nothing, which the feed answers with `reset` once pruned.
 */
function feedPruned(local: LocalSide): boolean {
  return local.vfs.changes("1/0:", { limit: 1, describe: false }).reset;
}

/**
 * Builds the next batch, or undefined when the peer has everything. Call `acknowledge` with
 * the peer's answer; until then (or a reconcile) no other batch can be built.
 */
export function nextBatch(
  local: LocalSide,
  limits: BatchLimits = DEFAULT_LIMITS,
  untilRev = Number.POSITIVE_INFINITY,
): Outgoing | undefined {
  const { ledger, vfs } = local;
  if (ledger.inflight())
    throw new Error("sync: a batch is in flight; reconcile (hello) before building another");
  const baseCursor = ledger.meta("sentCursor") ?? "0";
  // "1": a listing is running (the peer applied its first batch); "owed": one began, and its
  // first batch has not reached the peer.
  const pass = ledger.meta("fullPass");
  let fullPass = pass === "1";
  let first = false;
  const builder = new Builder(local, limits);
  builder.listAll = fullPass;
  if (pass === "owed" || (baseCursor === "0" && !fullPass && ledger.hasBase() && feedPruned(local))) {
    // The peer has read none of our feed, yet agreed on paths with us (through its own
    // batches): a deletion of one of those may be among the pruned records, so list everything.
    // Or a listing began and its batch never reached the peer: the bases it forgot (below) were
    // the only sign that one is needed, so it begins again.
    fullPass = first = true;
    builder.startListing();
  }
  const rev = vfs.rev();
  for (const [path, seq] of ledger.dirtyEntries(limits.maxChanges)) {
    builder.dirty.push([path, seq]);
    builder.consider(path, rev, undefined, true);
  }
  let cursor = baseCursor;
  let caughtUp = false;
  while (!builder.full()) {
    const page = vfs.changes(cursor, { limit: Math.min(256, limits.maxScan), describe: false });
    if (page.reset && !fullPass) {
      // The feed was pruned past our cursor: deletions may be gone, so list the whole tree.
      fullPass = first = true;
      builder.startListing();
    }
    let taken = 0;
    const echoes = fullPass ? new Map<string, number>() : ledger.echoes(page.changes.map((c) => c.path));
    builder.reader.prefetch(
      page.changes
        .filter((c) => echoes.get(c.path) !== c.rev && (c.rev <= untilRev || fullPass))
        .map((c) => c.path),
    );
    // Changes after `untilRev` wait for a later batch (a listing goes to the end regardless).
    let settled = true;
    for (const change of page.changes) {
      if (builder.full()) break;
      if (change.rev > untilRev && !fullPass) {
        settled = false;
        break;
      }
      builder.consider(change.path, change.rev, echoes.get(change.path));
      taken++;
    }
    if (taken < page.changes.length) {
      if (taken > 0) cursor = page.cursors[taken - 1] ?? cursor;
      caughtUp = !settled;
      break;
    }
    cursor = page.cursor;
    if (!page.more) {
      caughtUp = true;
      break;
    }
  }
  if (first) {
    ledger.forgetPruned();
    ledger.setMeta("fullPass", "owed");
  }
  const last = fullPass && caughtUp;
  const moreDirty = ledger.dirtyEntries(limits.maxChanges + 1).length > builder.dirty.length;
  if (builder.changes.length === 0 && cursor === baseCursor && !first && !last) {
    if (builder.dirty.length > 0) ledger.clearDirtyEntries(builder.dirty);
    return undefined;
  }
  const batch: SyncBatch = {
    id: local.randomId(),
    from: local.id,
    baseCursor,
    cursor,
    changes: builder.changes,
  };
  if (fullPass) batch.full = { first, last };
  const ack = ledger.meta("lastBatch");
  if (ack !== undefined) batch.ack = ack;
  ledger.setInflight({
    id: batch.id,
    cursor,
    fullPass: fullPass && !last,
    entries: builder.entries,
    dirty: builder.dirty,
  });
  return { batch, more: !caughtUp || moreDirty };
}

/** Records the peer's answer to the batch in flight: agreed states become the base. */
export function acknowledge(local: LocalSide, batch: SyncBatch, result: ApplyResult): void {
  const { ledger } = local;
  const inflight = ledger.inflight();
  if (!inflight || inflight.id !== batch.id) return;
  if (result.status === "applied" || result.status === "duplicate") commitInflight(local);
  else ledger.setInflight(undefined);
}

/**
 * Makes the batch in flight count as applied by the peer: each state sent becomes the agreed
 * base. This overrides what batches from the peer applied meanwhile agreed on: those were built
 * before the peer applied ours (a batch built after it carries `ack` and settles ours first).
 */
export function commitInflight(local: LocalSide): void {
  const { ledger } = local;
  const inflight = ledger.inflight();
  if (!inflight) return;
  local.sql.transaction(() => {
    // A path that still holds what a batch of the peer applied since left there keeps that as
    // its base: the peer built that batch from its own state and, our batch being older news
    // to it, kept its state (a conflict or an unchanged re-send of ours).
    const echoed = ledger.currentEchoes(inflight.entries.map(([path]) => path));
    ledger.withListingKnown(() => {
      const rows = inflight.entries.filter(([path]) => !echoed.has(path));
      ledger.setBases(rows.map(([path, fp, dir]) => ({ path, fp, dir })));
    });
    ledger.clearDirtyEntries(inflight.dirty);
    ledger.setMeta("sentCursor", inflight.cursor);
    ledger.recordCommitted(
      inflight.id,
      inflight.entries.map(([path]) => path),
    );
    ledger.setMeta("fullPass", inflight.fullPass ? "1" : undefined);
    ledger.setInflight(undefined);
    // Echo records the peer's cursor has passed will never be looked at again.
    const rev = Number.parseInt(inflight.cursor, 10);
    if (Number.isSafeInteger(rev)) ledger.pruneEchoes(rev);
  });
}
