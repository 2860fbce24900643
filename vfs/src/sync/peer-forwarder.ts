/**
 * A SyncPeerApi that forwards every call to a remote end, the one way each transport's peer is
 * made: the DO's stub of computerd's DaemonApi, computerd's stub of the DO's DoSyncApi, and the
 * test stand-ins. Each answer is awaited, so SyncLink sees plain values (not capnweb promises);
 * `around` wraps every call (commit before it leaves, time it, drop the socket in a fault test).
 */
import type { SyncPeerApi } from "./wire.ts";

/** A method of the sync wire. */
export type SyncPeerMethod = keyof SyncPeerApi;

/** What can be forwarded to: anything with the SyncPeerApi methods (a capnweb stub of one). */
export type SyncPeerRemote = {
  [K in SyncPeerMethod]: (...args: Parameters<SyncPeerApi[K]>) => PromiseLike<unknown> | unknown;
};

/** Wraps one forwarded call (made with `args`); must call `call` once and answer what it answers. */
export type AroundSyncCall = (
  method: SyncPeerMethod,
  call: () => Promise<unknown>,
  args: readonly unknown[],
) => Promise<unknown>;

const METHODS: readonly SyncPeerMethod[] = [
  "hello",
  "missingBlobs",
  "putBlobs",
  "getBlobs",
  "releaseBlobs",
  "applyBatch",
];

/** The SyncPeerApi that forwards to `remote`, each call through `around`. */
export function forwardSyncPeer(
  remote: SyncPeerRemote,
  around: AroundSyncCall = (_method, call) => call(),
): SyncPeerApi {
  // Called as a method of `remote`: a capnweb stub turns any other property access (`.apply`,
  // `.call`) into a remote path of its own.
  const methods = remote as unknown as Record<SyncPeerMethod, (...args: unknown[]) => unknown>;
  const peer: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of METHODS) {
    peer[method] = (...args) => around(method, async () => await methods[method](...args), args);
  }
  return peer as unknown as SyncPeerApi;
}
