/**
 * The Durable Object's stub as the SyncPeerApi of computerd's upload SyncLink. Before every
 * call leaves, the mirror's grouped SQL transaction is committed: the batch in flight and the
 * acknowledgements recorded so far are on disk before the DO can act on them, so a daemon
 * killed at any point reconciles from its hello without re-sending or forgetting anything.
 */
import {
  type BlobData,
  countSyncCall,
  type DoSyncApi,
  forwardSyncPeer,
  newSyncCounters,
  type SyncCounters,
  type SyncPeerApi,
} from "@computer/vfs/sync";
import type { RpcStub } from "capnweb";

/** Blobs to the DO by another way than the link: false when it does not take them that way. */
export interface BlobUpload {
  post(blobs: readonly BlobData[]): Promise<boolean>;
}

/**
 * SyncPeerApi over the DO's stub (`peer`); `beforeCall` runs (synchronously) before each call,
 * and `putBlobs` goes through `blobs` when given.
 */
export class DoPeer {
  readonly #remote: RpcStub<DoSyncApi>;
  /** What the upload SyncLink calls. */
  readonly peer: SyncPeerApi;
  /** Milliseconds spent waiting for the DO's answers (its apply time plus the round trips). */
  waitedMs = 0;
  /** Round trips and bytes of the calls (shared by the links of one daemon: serve's fence events). */
  readonly counters: SyncCounters;

  constructor(
    remote: RpcStub<DoSyncApi>,
    beforeCall: () => void,
    counters = newSyncCounters(),
    blobs?: BlobUpload,
  ) {
    this.#remote = remote;
    this.counters = counters;
    this.peer = forwardSyncPeer(remote, async (method, call, args) => {
      beforeCall();
      const started = performance.now();
      try {
        // A putBlobs goes as an HTTP body when the DO takes one (server/blob-post.ts).
        const uploaded =
          method === "putBlobs" && blobs !== undefined && (await blobs.post(args[0] as BlobData[]));
        const answer = uploaded ? undefined : await call();
        countSyncCall(counters, method, args, answer);
        return answer;
      } finally {
        this.waitedMs += performance.now() - started;
      }
    });
  }

  /** The DO's vfs revision (a fence that sent nothing reports it). */
  async rev(): Promise<number> {
    const rev = await this.#remote.rev();
    countSyncCall(this.counters, "rev", [], rev);
    return rev;
  }
}
