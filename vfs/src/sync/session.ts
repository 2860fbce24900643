/**
 * A SyncLink drives ONE direction of sync over a connection: from a local endpoint to the
 * peer's SyncPeerApi (the DO pushing to computerd, or computerd uploading to the DO). It
 * reconciles cursors on the first use and after any failure, then sends batches until the
 * peer has every local change: for each batch, only the blobs the peer lacks.
 */
import type { SyncEndpoint } from "./endpoint.ts";
import { type BatchLimits, DEFAULT_LIMITS } from "./outbox.ts";
import { batchHashes } from "./receive.ts";
import { storedBlobSizes, storedBlobs } from "./state.ts";
import type { BlobData, BlobRef, SyncBatch, SyncConflict, SyncPeerApi } from "./wire.ts";

/** Tuning of one drain. */
export interface DrainOptions {
  limits?: Partial<BatchLimits>;
  /** Missing blobs up to this many bytes ride inside the batch; more go through putBlobs first. */
  inlineBlobBytes?: number;
  /** Bytes of blobs per putBlobs call. */
  blobCallBytes?: number;
  /** Stop after this many batches (default: until caught up). */
  maxBatches?: number;
  /**
   * To a peer that fetches (its hello said so), the missing blobs of files of at least this
   * many bytes go as placeholders, fetched when first read (default PLACEHOLDER_FILE_BYTES).
   */
  placeholderFileBytes?: number;
  /**
   * Send only feed entries up to this revision (default: all): a background upload leaves the
   * newest changes, likely still in progress (a file being written, then its mode and times
   * set), for a later batch instead of sending each intermediate state.
   */
  untilRev?: number;
}

/**
 * Files this large reach a fetching peer as placeholders: a command that never reads them does
 * not wait for their bytes. Smaller files travel whole (one read of each would otherwise cost
 * a round trip).
 */
export const PLACEHOLDER_FILE_BYTES = 4 << 20;

/** What one drain did. */
export interface DrainReport {
  batches: number;
  changes: number;
  /** Blobs sent (inline or through putBlobs) and their bytes. */
  blobs: number;
  blobBytes: number;
  conflicts: SyncConflict[];
  /** The peer's vfs revision after the last batch (undefined when nothing was sent). */
  rev: number | undefined;
}

/** Splits `items` into groups of at most `maxBytes` each by `size` (a single larger item goes alone). */
function groupBySize<T>(items: readonly T[], size: (item: T) => number, maxBytes: number): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const n = size(item);
    if (group.length > 0 && bytes + n > maxBytes) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(item);
    bytes += n;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Splits blobs into groups of at most `maxBytes` each (a single larger blob travels alone). */
export function groupBlobs(blobs: readonly BlobData[], maxBytes: number): BlobData[][] {
  return groupBySize(blobs, (blob) => blob.data.length, maxBytes);
}

/** Options of a SyncLink. */
export interface SyncLinkOptions {
  /**
   * The bytes of blob `hash` when memory holds them (their sha-256 is `hash`), so a send need
   * not read them out of the store; undefined: read it from the store.
   */
  inMemory?: (hash: string) => Uint8Array | undefined;
}

/** One direction of sync between a local endpoint and a peer. */
export class SyncLink {
  readonly local: SyncEndpoint;
  readonly remote: SyncPeerApi;
  private reconciled = false;
  /** The peer's hello said it takes placeholders. */
  private peerFetches = false;
  private tail: Promise<unknown> = Promise.resolve();
  /** The highest revision the peer answered for a batch of this link (0: none yet). */
  appliedRev = 0;

  /** Blobs held in memory by hash (computerd's pages stored lately), read instead of the store. */
  readonly #inMemory: ((hash: string) => Uint8Array | undefined) | undefined;

  constructor(local: SyncEndpoint, remote: SyncPeerApi, options: SyncLinkOptions = {}) {
    this.local = local;
    this.remote = remote;
    this.#inMemory = options.inMemory;
  }

  /** The blobs `hashes` from memory where held, the rest from the store; undefined when one is missing. */
  #blobs(hashes: readonly string[]): BlobData[] | undefined {
    const inMemory = this.#inMemory;
    if (!inMemory) return storedBlobs(this.local.local.sql, hashes);
    const blobs: BlobData[] = [];
    const rest: string[] = [];
    for (const hash of hashes) {
      const data = inMemory(hash);
      if (data) blobs.push({ hash, data });
      else rest.push(hash);
    }
    if (rest.length === 0) return blobs;
    const stored = storedBlobs(this.local.local.sql, rest);
    return stored ? [...blobs, ...stored] : undefined;
  }

  /** Exchanges hellos with the peer and settles our batch in flight. */
  async connect(): Promise<void> {
    const reply = await this.remote.hello(this.local.helloInfo());
    this.local.reconcile(reply);
    this.peerFetches = reply.fetches === true;
    this.reconciled = true;
  }

  /**
   * Sends local changes until the peer has all of them (as of the call). Calls run one after
   * another. Rejects when the link fails; the next call reconciles and resumes, and nothing is
   * lost or applied twice.
   */
  drain(options: DrainOptions = {}): Promise<DrainReport> {
    const run = this.tail.catch(() => undefined).then(() => this.run(options));
    this.tail = run;
    return run;
  }

  private async run(options: DrainOptions): Promise<DrainReport> {
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    const report: DrainReport = {
      batches: 0,
      changes: 0,
      blobs: 0,
      blobBytes: 0,
      conflicts: [],
      rev: undefined,
    };
    try {
      if (!this.reconciled || this.local.hasInflight()) await this.connect();
      let attempts = 0;
      while (report.batches < (options.maxBatches ?? Number.POSITIVE_INFINITY)) {
        const outgoing = this.local.nextBatch(limits, options.untilRev);
        if (!outgoing) break;
        const { batch } = outgoing;
        if (!(await this.sendBlobs(batch, options, report))) {
          // A blob vanished locally (its file changed and GC ran): rebuild from current state.
          this.local.acknowledge(batch, {
            status: "missing",
            rev: 0,
            cursor: batch.baseCursor,
            conflicts: [],
          });
          if (++attempts > 3) throw new Error("sync: local blobs keep disappearing");
          continue;
        }
        const result = await this.remote.applyBatch(batch);
        this.local.acknowledge(batch, result);
        if (result.status === "stale" || result.status === "missing") {
          if (++attempts > 3) throw new Error(`sync: batch ${result.status} after retries`);
          if (result.status === "stale") await this.connect();
          continue;
        }
        attempts = 0;
        report.batches++;
        report.changes += batch.changes.length;
        report.conflicts.push(...result.conflicts);
        report.rev = result.rev;
        this.appliedRev = Math.max(this.appliedRev, result.rev);
        if (!outgoing.more) break;
      }
      return report;
    } catch (err) {
      this.reconciled = false;
      throw err;
    }
  }

  /**
   * Names the missing blobs of large files in `batch.placeholders` instead of sending them, held
   * here until the peer releases them; answers the missing blobs still to be sent.
   */
  private sendPlaceholders(batch: SyncBatch, missing: string[], options: DrainOptions): string[] {
    const large = new Set<string>();
    const min = options.placeholderFileBytes ?? PLACEHOLDER_FILE_BYTES;
    for (const change of batch.changes) {
      if (change.stat?.type !== "file" || change.stat.size < min) continue;
      for (const hash of change.chunks ?? []) if (hash !== "") large.add(hash);
    }
    const vfs = this.local.local.vfs;
    const refs: BlobRef[] = [];
    const rest: string[] = [];
    for (const hash of missing) {
      const size = large.has(hash) ? vfs.blobSize(hash) : undefined;
      if (size !== undefined && size > 0) refs.push({ hash, size });
      else rest.push(hash);
    }
    if (refs.length > 0) {
      batch.placeholders = refs;
      batch.holdSeq = vfs.holdBlobs(refs.map((ref) => ref.hash));
    }
    return rest;
  }

  /**
   * Sends the blobs of `batch` the peer lacks; false when one is missing locally. Small sets ride
   * inside the batch; larger ones are read one group at a time while the previous group is on
   * the wire (at most two calls in flight), so a large file never sits in memory whole.
   */
  private async sendBlobs(batch: SyncBatch, options: DrainOptions, report: DrainReport): Promise<boolean> {
    const hashes = batchHashes(batch.changes);
    if (hashes.length === 0) return true;
    const sql = this.local.local.sql;
    let missing = await this.remote.missingBlobs(hashes);
    if (this.peerFetches) missing = this.sendPlaceholders(batch, missing, options);
    // Read in one statement per group (sizes first), not one per blob.
    const sizes = storedBlobSizes(sql, missing);
    let bytes = 0;
    for (const hash of missing) {
      const size = sizes.get(hash);
      if (size === undefined) return false;
      bytes += size;
    }
    report.blobs += missing.length;
    report.blobBytes += bytes;
    if (bytes <= (options.inlineBlobBytes ?? 1 << 20)) {
      const blobs = this.#blobs(missing);
      if (!blobs) return false;
      if (blobs.length > 0) batch.blobs = blobs;
      return true;
    }
    return this.putGroups(missing, sizes, options);
  }

  /**
   * Sends the peer, before any batch names them, the stored blobs among `hashes` it lacks (the
   * chunks a command has stored so far of a file it is still writing), so the batch that names
   * them later carries only metadata and the fence after the command only the tail. The peer
   * keeps a blob nothing names yet for its GC window (an hour); one gone by then is sent again
   * with its batch. Answers the bytes sent.
   */
  async sendAhead(hashes: readonly string[], options: DrainOptions = {}): Promise<number> {
    if (hashes.length === 0) return 0;
    const sql = this.local.local.sql;
    const sizes = storedBlobSizes(sql, await this.remote.missingBlobs([...hashes]));
    // A placeholder here (its bytes still at the peer) has no size to send: the peer holds it.
    const missing = [...sizes.keys()];
    if (!(await this.putGroups(missing, sizes, options))) return 0;
    let bytes = 0;
    for (const size of sizes.values()) bytes += size;
    return bytes;
  }

  /**
   * putBlobs of `missing` (stored here, sizes known), a group at a time, each read while the
   * previous one is on the wire (at most two calls in flight), so a large file never sits in
   * memory whole; false when one is missing locally.
   */
  private async putGroups(
    missing: readonly string[],
    sizes: ReadonlyMap<string, number>,
    options: DrainOptions,
  ): Promise<boolean> {
    const inFlight: Promise<void>[] = [];
    try {
      const groups = groupBySize(missing, (hash) => sizes.get(hash) ?? 0, options.blobCallBytes ?? 8 << 20);
      for (const names of groups) {
        const blobs = this.#blobs(names);
        if (!blobs) {
          await Promise.allSettled(inFlight);
          return false;
        }
        const call = Promise.resolve(this.remote.putBlobs(blobs));
        // Awaited below; until then its rejection must not count as unhandled.
        call.catch(() => undefined);
        inFlight.push(call);
        if (inFlight.length >= 2) await inFlight.shift();
      }
    } catch (err) {
      await Promise.allSettled(inFlight);
      throw err;
    }
    await Promise.all(inFlight);
    return true;
  }
}
