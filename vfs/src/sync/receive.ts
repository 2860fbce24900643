/**
 * The receiving half of sync: `applyBatch` checks a batch, stores its blobs and applies all of
 * its changes in ONE transaction together with the ledger (base fingerprints, the sender's
 * cursor, the batch id), so a batch applies entirely or not at all, and a batch id applies once.
 */
import { FsError } from "../errors.ts";
import { CHUNK_SIZE } from "../limits.ts";
import { normalizePath } from "../paths.ts";
import type { FileType } from "../types.ts";
import type { LocalSide } from "./local.ts";
import { Merge } from "./merge.ts";
import { commitInflight } from "./outbox.ts";
import { depthOf, missingBlobHashes, parentOf, stateOf } from "./state.ts";
import type { ApplyResult, SyncBatch, SyncChange } from "./wire.ts";

const FILE_TYPES: ReadonlySet<FileType> = new Set([
  "file",
  "dir",
  "symlink",
  "fifo",
  "socket",
  "char",
  "block",
]);
const HASH = /^[0-9a-f]{64}$/;

function invalid(detail: string): FsError {
  return new FsError("EINVAL", "sync", undefined, `invalid batch: ${detail}`);
}

/** Other names of a hard-linked non-directory: distinct normalised paths, never the path itself or "/". */
function checkLinks(path: string, type: FileType, links: unknown): void {
  if (type === "dir" || !Array.isArray(links)) throw invalid(`links of ${path}`);
  const seen = new Set<string>([path, "/"]);
  for (const name of links) {
    if (typeof name !== "string" || seen.has(name) || normalizePath(name, "sync") !== name) {
      throw invalid(`link ${String(name)} of ${path}`);
    }
    seen.add(name);
  }
}

function checkChange(change: SyncChange): void {
  if (typeof change.path !== "string" || normalizePath(change.path, "sync") !== change.path) {
    throw invalid(`path ${String(change.path)}`);
  }
  if (typeof change.base !== "string") throw invalid(`base of ${change.path}`);
  const stat = change.stat;
  if (!stat) {
    if (change.path === "/") throw invalid("the root cannot be deleted");
    if (change.links !== undefined) throw invalid(`links of deleted ${change.path}`);
    return;
  }
  if (!FILE_TYPES.has(stat.type) || (change.path === "/" && stat.type !== "dir")) {
    throw invalid(`type of ${change.path}`);
  }
  if (stat.type === "symlink" && typeof change.target !== "string") throw invalid(`target of ${change.path}`);
  if (stat.type === "file") {
    const chunks = change.chunks;
    if (!Array.isArray(chunks) || !chunks.every((h) => h === "" || (typeof h === "string" && HASH.test(h)))) {
      throw invalid(`chunks of ${change.path}`);
    }
  }
  if (change.links !== undefined) checkLinks(change.path, stat.type, change.links);
  for (const x of change.xattrs ?? []) {
    if (typeof x.name !== "string" || !(x.value instanceof Uint8Array))
      throw invalid(`xattr of ${change.path}`);
  }
}

/** Throws EINVAL unless `batch` is well formed (it may come from a less trusted container). */
export function checkBatch(batch: SyncBatch): void {
  for (const key of ["id", "from", "baseCursor", "cursor"] as const) {
    if (typeof batch[key] !== "string" || batch[key] === "") throw invalid(key);
  }
  if (batch.ack !== undefined && typeof batch.ack !== "string") throw invalid("ack");
  if (!Array.isArray(batch.changes)) throw invalid("changes");
  const paths = new Set<string>();
  for (const change of batch.changes) {
    checkChange(change);
    if (paths.has(change.path)) throw invalid(`duplicate path ${change.path}`);
    paths.add(change.path);
  }
  for (const blob of batch.blobs ?? []) {
    if (typeof blob.hash !== "string" || !(blob.data instanceof Uint8Array)) throw invalid("blob");
  }
  if (batch.placeholders !== undefined) {
    if (!Array.isArray(batch.placeholders) || !Number.isSafeInteger(batch.holdSeq))
      throw invalid("placeholders");
    for (const ref of batch.placeholders) {
      if (typeof ref?.hash !== "string" || !HASH.test(ref.hash)) throw invalid("placeholder");
      if (!Number.isSafeInteger(ref.size) || ref.size <= 0 || ref.size > CHUNK_SIZE)
        throw invalid("placeholder size");
    }
  }
}

/** Chunk hashes a batch references. */
export function batchHashes(changes: readonly SyncChange[]): string[] {
  const hashes = new Set<string>();
  for (const change of changes) for (const hash of change.chunks ?? []) if (hash !== "") hashes.add(hash);
  return [...hashes];
}

/** Deletions deepest first, then everything else parents first. */
export function applyOrder(changes: readonly SyncChange[]): SyncChange[] {
  const deletions = changes.filter((c) => !c.stat).sort((a, b) => depthOf(b.path) - depthOf(a.path));
  const rest = changes
    .filter((c) => c.stat)
    .sort((a, b) => depthOf(a.path) - depthOf(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return [...deletions, ...rest];
}

/**
 * After a full listing: every path this side had agreed on that the listing did not mention
 * was deleted by the peer. Agreed (unchanged) ones go; changed ones stay and are re-sent.
 * Paths of our batches the peer applied after it built the listing's last batch (`ack` names
 * the latest it had applied then) count as listed: the peer has them.
 */
function pruneUnlisted(local: LocalSide, merge: Merge, ack: string | undefined): void {
  for (const path of local.ledger.committedAfter(ack)) local.ledger.markSeen(path);
  // Judged before anything goes: removing an entry stamps its directory's mtime, which would
  // make the directory look changed here.
  const rows = local.ledger.unseenBase().map((row) => {
    const state = local.read(row.path);
    return { row, state, unchanged: state !== undefined && local.fp(state) === row.fp };
  });
  // The directories keep the times the listing gave them (see Merge.restoreDirTimes).
  for (const { row, unchanged } of rows) if (unchanged) merge.keepTimes(parentOf(row.path));
  for (const { row, state, unchanged } of rows) {
    if (state && unchanged && state.stat.type !== "dir") local.vfs.unlink(row.path);
    else if (unchanged && local.vfs.list(row.path).length === 0) local.vfs.rmdir(row.path);
    else if (state) local.ledger.markDirty(row.path);
    local.ledger.setBase(row.path, "");
  }
}

/**
 * Paths this batch left holding the sender's state while our batch in flight sends another state
 * for them (batches that crossed) are marked for re-sending; their echo records stay (they are
 * written after this). Our batch's commit keeps the sender's state as the base, on the belief that
 * the sender keeps it, as it does when it finds our change stale or wins the conflict; but when it
 * loses that conflict it takes our state, and neither side would send again. The re-send (against
 * the sender's state, outbox.ts) settles the path whichever way the sender went.
 */
function markCrossed(local: LocalSide, changes: readonly SyncChange[], echoes: readonly string[]): void {
  if (echoes.length === 0) return;
  const sent = new Map(local.ledger.inflight()?.entries.map(([path, fp]) => [path, fp]));
  if (sent.size === 0) return;
  let echoed: Set<string> | undefined;
  for (const change of changes) {
    const fp = sent.get(change.path);
    if (fp === undefined) continue;
    echoed ??= new Set(echoes);
    if (echoed.has(change.path) && fp !== local.fp(stateOf(change))) local.ledger.markDirty(change.path);
  }
}

/** Applies `batch` to the local side (see SyncPeerApi.applyBatch). */
export function applyBatch(local: LocalSide, batch: SyncBatch): ApplyResult {
  checkBatch(batch);
  const { ledger, vfs } = local;
  const previous = ledger.applied(batch.id);
  if (previous) return { ...previous, status: "duplicate" };
  const cursor = ledger.meta("receivedCursor") ?? "0";
  if (ledger.meta("peer") !== batch.from || batch.baseCursor !== cursor) {
    return { status: "stale", rev: vfs.rev(), cursor, conflicts: [] };
  }
  return local.sql.transaction((): ApplyResult => {
    // Inline blobs are stored at once, a few statements for all of them (Vfs.putBlobs), and
    // the files that use them point at them (Vfs.setChunks, Vfs.createNodes).
    const blobs = batch.blobs ?? [];
    const hashes = vfs.putBlobs(blobs.map((blob) => blob.data));
    blobs.forEach((blob, i) => {
      if (hashes[i] !== blob.hash) throw invalid(`blob ${blob.hash} does not match its content`);
    });
    const stored = new Set(hashes);
    // Placeholders (only a side that fetches takes them): the files point at them now, their
    // bytes come when first read.
    if (local.fetches && batch.placeholders && batch.placeholders.length > 0) {
      vfs.putPlaceholders(batch.placeholders);
      const seq = batch.holdSeq ?? 0;
      if (seq > Number(ledger.meta("holdSeq") ?? "0")) ledger.setMeta("holdSeq", String(seq));
    }
    const missing = missingBlobHashes(
      local.sql,
      batchHashes(batch.changes).filter((hash) => !stored.has(hash)),
    );
    if (missing.length > 0) return { status: "missing", rev: vfs.rev(), cursor, conflicts: [], missing };
    const merge = ledger.withListingKnown(() => {
      // The sender built this batch after applying our batch in flight: settle that one first.
      if (batch.ack !== undefined && ledger.inflight()?.id === batch.ack) commitInflight(local);
      const merge = new Merge(local, batch.changes, batch.ack);
      if (batch.full?.first) ledger.setListing(true);
      for (const change of applyOrder(batch.changes)) merge.apply(change);
      merge.flush();
      if (batch.full) {
        for (const change of batch.changes) ledger.markSeen(change.path);
        if (batch.full.last) {
          pruneUnlisted(local, merge, batch.ack);
          ledger.setListing(false);
        }
      }
      merge.restoreDirTimes();
      return merge;
    });
    markCrossed(local, batch.changes, merge.echoes);
    ledger.recordEchoes(merge.echoes);
    ledger.setMeta("receivedCursor", batch.cursor);
    ledger.setMeta("lastBatch", batch.id);
    const result: ApplyResult = {
      status: "applied",
      rev: vfs.rev(),
      cursor: batch.cursor,
      conflicts: merge.conflicts,
    };
    ledger.recordApplied(batch.id, result);
    return result;
  });
}
