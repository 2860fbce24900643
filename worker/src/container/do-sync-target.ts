/**
 * The DO's side of the sync wire as a capnweb RpcTarget: `DoSyncApi` of vfs/src/sync/wire.ts,
 * served to computerd on the dial-back WebSocket. Every call goes to the DO's SyncEndpoint;
 * after an upload is applied the DO is told (to schedule its GC alarm).
 */
import type {
  ApplyResult,
  BlobData,
  DoSyncApi,
  SyncBatch,
  SyncEndpoint,
  SyncHello,
} from "@computer/vfs/sync";
import { RpcTarget } from "capnweb";

/** What the target needs from the DO. */
export interface DoSyncDeps {
  endpoint(): SyncEndpoint;
  /** The DO's current vfs revision. */
  rev(): number;
  /** Called after a batch changed the DO's filesystem. */
  changed(): void;
}

/** `DoSyncApi` over the DO's sync endpoint. Called by computerd only (the link is authenticated). */
export class DoSyncTarget extends RpcTarget implements DoSyncApi {
  readonly #deps: DoSyncDeps;

  constructor(deps: DoSyncDeps) {
    super();
    this.#deps = deps;
  }

  hello(hello: SyncHello): SyncHello {
    return this.#deps.endpoint().hello(hello);
  }

  missingBlobs(hashes: string[]): string[] {
    return this.#deps.endpoint().missingBlobs(hashes);
  }

  putBlobs(blobs: BlobData[]): void {
    this.#deps.endpoint().putBlobs(blobs);
  }

  getBlobs(hashes: string[]): BlobData[] {
    return this.#deps.endpoint().getBlobs(hashes);
  }

  applyBatch(batch: SyncBatch): ApplyResult {
    const result = this.#deps.endpoint().applyBatch(batch);
    if (result.status === "applied") this.#deps.changed();
    return result;
  }

  rev(): number {
    return this.#deps.rev();
  }
}
