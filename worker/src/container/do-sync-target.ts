/**
 * The DO's side of the sync wire as a capnweb RpcTarget: `DoSyncApi` of vfs/src/sync/wire.ts,
 * served to computerd on the dial-back WebSocket. Every call goes to the DO's SyncEndpoint;
 * after an upload is applied the DO is told (to schedule its GC alarm).
 */
import {
  type ApplyResult,
  type BlobData,
  countSyncCall,
  type DoSyncApi,
  type SyncBatch,
  type SyncCounters,
  type SyncEndpoint,
  type SyncHello,
} from "@computer/vfs/sync";
import { RpcTarget } from "capnweb";

/** What the target needs from the DO. */
export interface DoSyncDeps {
  endpoint(): SyncEndpoint;
  /** The DO's current vfs revision. */
  rev(): number;
  /** Called after a batch changed the DO's filesystem. */
  changed(): void;
  /** Where the calls served are counted (round trips, changes, bytes), when anywhere. */
  counters?: SyncCounters;
}

/** `DoSyncApi` over the DO's sync endpoint. Called by computerd only (the link is authenticated). */
export class DoSyncTarget extends RpcTarget implements DoSyncApi {
  readonly #deps: DoSyncDeps;

  constructor(deps: DoSyncDeps) {
    super();
    this.#deps = deps;
  }

  #count<T>(method: string, args: unknown[], answer: T): T {
    if (this.#deps.counters) countSyncCall(this.#deps.counters, method, args, answer);
    return answer;
  }

  hello(hello: SyncHello): SyncHello {
    return this.#count("hello", [hello], this.#deps.endpoint().hello(hello));
  }

  missingBlobs(hashes: string[]): string[] {
    return this.#count("missingBlobs", [hashes], this.#deps.endpoint().missingBlobs(hashes));
  }

  putBlobs(blobs: BlobData[]): void {
    this.#deps.endpoint().putBlobs(blobs);
    this.#count("putBlobs", [blobs], undefined);
  }

  getBlobs(hashes: string[]): BlobData[] {
    return this.#count("getBlobs", [hashes], this.#deps.endpoint().getBlobs(hashes));
  }

  releaseBlobs(hashes: string[], upTo: number): void {
    this.#deps.endpoint().releaseBlobs(hashes, upTo);
    this.#count("releaseBlobs", [hashes, upTo], undefined);
  }

  applyBatch(batch: SyncBatch): ApplyResult {
    const result = this.#deps.endpoint().applyBatch(batch);
    if (result.status === "applied") this.#deps.changed();
    return this.#count("applyBatch", [batch], result);
  }

  rev(): number {
    return this.#count("rev", [], this.#deps.rev());
  }
}
