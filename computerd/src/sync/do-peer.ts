/**
 * The Durable Object's stub as the SyncPeerApi of computerd's upload SyncLink. Before every
 * call leaves, the mirror's grouped SQL transaction is committed: the batch in flight and the
 * acknowledgements recorded so far are on disk before the DO can act on them, so a daemon
 * killed at any point reconciles from its hello without re-sending or forgetting anything.
 */
import { type DoSyncApi, forwardSyncPeer, type SyncPeerApi } from "@computer/vfs/sync";
import type { RpcStub } from "capnweb";

/** SyncPeerApi over the DO's stub (`peer`); `beforeCall` runs (synchronously) before each call. */
export class DoPeer {
  readonly #remote: RpcStub<DoSyncApi>;
  /** What the upload SyncLink calls. */
  readonly peer: SyncPeerApi;
  /** Milliseconds spent waiting for the DO's answers (its apply time plus the round trips). */
  waitedMs = 0;

  constructor(remote: RpcStub<DoSyncApi>, beforeCall: () => void) {
    this.#remote = remote;
    this.peer = forwardSyncPeer(remote, async (_method, call) => {
      beforeCall();
      const started = performance.now();
      try {
        return await call();
      } finally {
        this.waitedMs += performance.now() - started;
      }
    });
  }

  /** The DO's vfs revision (a fence that sent nothing reports it). */
  async rev(): Promise<number> {
    return await this.#remote.rev();
  }
}
