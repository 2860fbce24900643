/**
 * An in-process transport for the sync wire: a SyncPeerApi that forwards to another endpoint
 * with every argument and result deep-copied (as capnweb would), counts the traffic, and can
 * fail a call before or after the peer ran it (a lost request or a lost answer). Used by the
 * tests and by hosts that keep both sides in one process.
 */
import type { ApplyResult, BlobData, SyncBatch, SyncHello, SyncPeerApi } from "./wire.ts";

/** Traffic counters of one loopback. */
export interface LoopbackStats {
  calls: Record<string, number>;
  /** Blobs moved to the peer (inline in batches or through putBlobs) and their bytes. */
  blobs: number;
  blobBytes: number;
  /** Blobs fetched from the peer with getBlobs. */
  pulled: number;
}

type Method = keyof SyncPeerApi;

/** Where an injected failure strikes: before the peer sees the call, or after it ran (answer lost). */
export type FaultPoint = "before" | "after";

/** The error an injected failure or a disconnected loopback throws. */
export class LinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LinkError";
  }
}

/** A SyncPeerApi that forwards to `target` in-process. */
export class Loopback implements SyncPeerApi {
  readonly stats: LoopbackStats = { calls: {}, blobs: 0, blobBytes: 0, pulled: 0 };
  private readonly target: SyncPeerApi;
  private readonly faults: { method: Method; point: FaultPoint }[] = [];
  private connected = true;

  constructor(target: SyncPeerApi) {
    this.target = target;
  }

  /** Makes the next call of `method` fail at `point`. */
  failNext(method: Method, point: FaultPoint): void {
    this.faults.push({ method, point });
  }

  /** Forgets failures injected with failNext that have not struck yet. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /** While disconnected every call fails before reaching the peer. */
  setConnected(connected: boolean): void {
    this.connected = connected;
  }

  private async call<A, R>(method: Method, arg: A, run: (arg: A) => R | Promise<R>): Promise<R> {
    this.stats.calls[method] = (this.stats.calls[method] ?? 0) + 1;
    const index = this.faults.findIndex((f) => f.method === method);
    const fault = index === -1 ? undefined : this.faults.splice(index, 1)[0];
    if (!this.connected || fault?.point === "before")
      throw new LinkError(`${method}: link down before the call`);
    const result = structuredClone(await run(structuredClone(arg)));
    if (fault?.point === "after") throw new LinkError(`${method}: link down before the answer`);
    return result;
  }

  private countBlobs(blobs: readonly BlobData[] | undefined): void {
    for (const blob of blobs ?? []) {
      this.stats.blobs++;
      this.stats.blobBytes += blob.data.length;
    }
  }

  /** Forwards hello (copied both ways, counted). */
  hello(hello: SyncHello): Promise<SyncHello> {
    return this.call("hello", hello, (h) => this.target.hello(h));
  }

  /** Forwards missingBlobs (copied both ways, counted). */
  missingBlobs(hashes: string[]): Promise<string[]> {
    return this.call("missingBlobs", hashes, (h) => this.target.missingBlobs(h));
  }

  /** Forwards putBlobs (copied both ways, counted). */
  putBlobs(blobs: BlobData[]): Promise<void> {
    this.countBlobs(blobs);
    return this.call("putBlobs", blobs, (b) => this.target.putBlobs(b));
  }

  /** Forwards getBlobs (copied both ways, counted). */
  async getBlobs(hashes: string[]): Promise<BlobData[]> {
    const blobs = await this.call("getBlobs", hashes, (h) => this.target.getBlobs(h));
    this.stats.pulled += blobs.length;
    return blobs;
  }

  /** Forwards releaseBlobs (copied, counted). */
  releaseBlobs(hashes: string[], upTo: number): Promise<void> {
    return this.call("releaseBlobs", hashes, (h) => this.target.releaseBlobs(h, upTo));
  }

  /** Forwards applyBatch (copied both ways, counted). */
  applyBatch(batch: SyncBatch): Promise<ApplyResult> {
    this.countBlobs(batch.blobs);
    return this.call("applyBatch", batch, (b) => this.target.applyBatch(b));
  }
}
