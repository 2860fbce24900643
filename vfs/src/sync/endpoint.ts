/**
 * A sync endpoint: one side's vfs plus its ledger, answering the peer's calls (SyncPeerApi)
 * and producing its own outgoing batches. The DO and computerd each open one over the database
 * of their vfs; a SyncLink (session.ts) drives one direction between an endpoint and its peer.
 */
import { FsError } from "../errors.ts";
import type { SqlLike } from "../sql.ts";
import type { Vfs } from "../vfs.ts";
import { LocalSide, type SyncOptions } from "./local.ts";
import {
  acknowledge,
  type BatchLimits,
  commitInflight,
  DEFAULT_LIMITS,
  nextBatch,
  type Outgoing,
} from "./outbox.ts";
import { applyBatch } from "./receive.ts";
import { missingBlobHashes } from "./state.ts";
import type { ApplyResult, BlobData, SyncBatch, SyncHello, SyncPeerApi } from "./wire.ts";

/** One side of the sync, over the same SqlLike its vfs was opened with. */
export class SyncEndpoint implements SyncPeerApi {
  readonly local: LocalSide;

  constructor(vfs: Vfs, sql: SqlLike, options: SyncOptions) {
    this.local = new LocalSide(vfs, sql, options);
  }

  /** This endpoint's stable id. */
  get id(): string {
    return this.local.id;
  }

  /** What this side says about itself on (re)connect. */
  helloInfo(): SyncHello {
    const { ledger } = this.local;
    return {
      id: this.local.id,
      side: this.local.side,
      received: {
        peer: ledger.meta("peer") ?? null,
        cursor: ledger.meta("receivedCursor") ?? "0",
        lastBatch: ledger.meta("lastBatch") ?? null,
      },
      ...(this.local.fetches ? { fetches: true } : {}),
    };
  }

  /** A new peer id means a new, empty peer (or one that lost its state): forget everything about the old one. */
  private accept(peer: SyncHello): void {
    if (typeof peer?.id !== "string" || peer.id === "" || peer.side === this.local.side) {
      throw new FsError("EINVAL", "sync", undefined, "invalid hello");
    }
    const { ledger } = this.local;
    if (ledger.meta("peer") === peer.id) return;
    this.local.sql.transaction(() => {
      this.forgetPeer();
      ledger.setMeta("peer", peer.id);
    });
  }

  /** Forgets everything about the peer: the ledger, and the blobs held for its placeholders. */
  private forgetPeer(): void {
    this.local.ledger.reset();
    this.local.vfs.releaseAllHolds();
  }

  /** SyncPeerApi.hello: records the caller as peer and answers with this side's hello. */
  hello(peer: SyncHello): SyncHello {
    this.accept(peer);
    return this.helloInfo();
  }

  /**
   * As a sender, after calling `hello` on the peer: settles the batch in flight (applied there
   * or not) and takes the peer's cursor of our feed as the truth.
   */
  reconcile(reply: SyncHello): void {
    this.accept(reply);
    const { ledger } = this.local;
    const received = reply.received;
    this.local.sql.transaction(() => {
      if (received.peer !== this.local.id) {
        // The peer does not know us (it is new or reset): nothing is agreed any more.
        this.forgetPeer();
        ledger.setMeta("peer", reply.id);
        return;
      }
      const inflight = ledger.inflight();
      if (inflight && received.lastBatch === inflight.id) commitInflight(this.local);
      else ledger.setInflight(undefined);
      ledger.setMeta("sentCursor", received.cursor);
    });
  }

  /** True while a batch's fate is unknown (call reconcile before sending again). */
  hasInflight(): boolean {
    return this.local.ledger.inflight() !== undefined;
  }

  /** SyncPeerApi.missingBlobs: the hashes this side has no blob for. */
  missingBlobs(hashes: string[]): string[] {
    if (!Array.isArray(hashes) || !hashes.every((h) => typeof h === "string")) {
      throw new FsError("EINVAL", "sync", undefined, "invalid hashes");
    }
    return missingBlobHashes(this.local.sql, hashes);
  }

  /**
   * SyncPeerApi.putBlobs: stores blobs after checking each against its hash (EINVAL otherwise,
   * and none stored), a few statements for all (Vfs.putBlobs).
   */
  putBlobs(blobs: BlobData[]): void {
    const { vfs, sql } = this.local;
    const mismatch = (blob: BlobData | undefined) =>
      new FsError("EINVAL", "sync", undefined, `blob ${String(blob?.hash)} does not match its content`);
    if (!Array.isArray(blobs)) throw new FsError("EINVAL", "sync", undefined, "invalid blobs");
    for (const blob of blobs) if (!(blob?.data instanceof Uint8Array)) throw mismatch(blob);
    sql.transaction(() => {
      const hashes = vfs.putBlobs(blobs.map((blob) => blob.data));
      const wrong = blobs.findIndex((blob, i) => hashes[i] !== blob.hash);
      if (wrong >= 0) throw mismatch(blobs[wrong]);
    });
  }

  /** SyncPeerApi.getBlobs: the blobs this side has among `hashes`. */
  getBlobs(hashes: string[]): BlobData[] {
    const out: BlobData[] = [];
    for (const hash of hashes) {
      const data = this.local.vfs.getBlob(hash);
      if (data) out.push({ hash, data });
    }
    return out;
  }

  /** SyncPeerApi.releaseBlobs: ends the holds of `hashes` made at sequence `upTo` or before. */
  releaseBlobs(hashes: string[], upTo: number): void {
    if (
      !Array.isArray(hashes) ||
      !hashes.every((h) => typeof h === "string") ||
      !Number.isSafeInteger(upTo)
    ) {
      throw new FsError("EINVAL", "sync", undefined, "invalid release");
    }
    this.local.vfs.releaseBlobs(hashes, upTo);
  }

  /** The highest hold sequence of the peer's placeholders applied here (0: none), for releaseBlobs. */
  heldSeq(): number {
    return Number(this.local.ledger.meta("holdSeq") ?? "0");
  }

  /** SyncPeerApi.applyBatch: see receive.ts. */
  applyBatch(batch: SyncBatch): ApplyResult {
    return applyBatch(this.local, batch);
  }

  /** The next batch of unsent local changes up to feed revision `untilRev` (see outbox.ts). */
  nextBatch(limits: BatchLimits = DEFAULT_LIMITS, untilRev?: number): Outgoing | undefined {
    return nextBatch(this.local, limits, untilRev);
  }

  /** Records the peer's answer to the batch in flight. */
  acknowledge(batch: SyncBatch, result: ApplyResult): void {
    acknowledge(this.local, batch, result);
  }

  /** Drops the sync tables (the computer is deleted). */
  destroy(): void {
    this.local.sql.transaction(() => this.local.ledger.destroy());
  }
}
