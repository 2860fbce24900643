/**
 * The Durable Object's stub as the SyncPeerApi of computerd's upload SyncLink. Before every
 * call leaves, the mirror's grouped SQL transaction is committed: the batch in flight and the
 * acknowledgements recorded so far are on disk before the DO can act on them, so a daemon
 * killed at any point reconciles from its hello without re-sending or forgetting anything.
 */
import type { BlobData, DoSyncApi, SyncBatch, SyncHello, SyncPeerApi } from "@computer/vfs/sync";
import type { RpcStub } from "capnweb";

/** SyncPeerApi over the DO's stub; `beforeCall` runs (synchronously) before each call. */
export class DoPeer implements SyncPeerApi {
  readonly #remote: RpcStub<DoSyncApi>;
  readonly #beforeCall: () => void;
  /** Milliseconds spent waiting for the DO's answers (its apply time plus the round trips). */
  waitedMs = 0;

  constructor(remote: RpcStub<DoSyncApi>, beforeCall: () => void) {
    this.#remote = remote;
    this.#beforeCall = beforeCall;
  }

  async hello(hello: SyncHello): Promise<SyncHello> {
    this.#beforeCall();
    return await this.#timed(() => this.#remote.hello(hello));
  }

  async missingBlobs(hashes: string[]): Promise<string[]> {
    this.#beforeCall();
    return await this.#timed(() => this.#remote.missingBlobs(hashes));
  }

  async putBlobs(blobs: BlobData[]): Promise<void> {
    this.#beforeCall();
    await this.#timed(() => this.#remote.putBlobs(blobs));
  }

  async getBlobs(hashes: string[]): Promise<BlobData[]> {
    this.#beforeCall();
    return await this.#timed(() => this.#remote.getBlobs(hashes));
  }

  async applyBatch(batch: SyncBatch) {
    this.#beforeCall();
    return await this.#timed(() => this.#remote.applyBatch(batch));
  }

  async #timed<T>(call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await call();
    } finally {
      this.waitedMs += performance.now() - started;
    }
  }

  /** The DO's vfs revision (a fence that sent nothing reports it). */
  async rev(): Promise<number> {
    return await this.#remote.rev();
  }
}
