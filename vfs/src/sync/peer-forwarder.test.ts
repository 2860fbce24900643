/** forwardSyncPeer: every method reaches the remote as a method call, answers awaited, each call through `around`. */
import { describe, expect, it } from "vitest";
import { forwardSyncPeer, type SyncPeerMethod } from "./peer-forwarder.ts";
import type { SyncHello } from "./wire.ts";

describe("forwardSyncPeer", () => {
  it("forwards each method with its arguments, as a method of the remote, and awaits the answer", async () => {
    const calls: string[] = [];
    const remote = {
      name: "remote",
      hello(this: { name: string }, hello: SyncHello) {
        calls.push(`${this.name}.hello`);
        return Promise.resolve(hello);
      },
      missingBlobs: (hashes: string[]) => Promise.resolve(hashes.slice(1)),
      putBlobs: () => Promise.resolve(),
      getBlobs: () => Promise.resolve([]),
      applyBatch: () => Promise.resolve({ applied: true }),
    };
    const seen: SyncPeerMethod[] = [];
    const peer = forwardSyncPeer(remote as never, async (method, call) => {
      seen.push(method);
      return await call();
    });
    const hello = { peer: "p", side: "mirror" } as unknown as SyncHello;
    expect(await peer.hello(hello)).toBe(hello);
    expect(await peer.missingBlobs(["a", "b"])).toEqual(["b"]);
    await peer.putBlobs([]);
    expect(await peer.getBlobs(["a"])).toEqual([]);
    expect(calls).toEqual(["remote.hello"]);
    expect(seen).toEqual(["hello", "missingBlobs", "putBlobs", "getBlobs"]);
  });

  it("lets a failing call reject through `around`", async () => {
    const remote = { missingBlobs: () => Promise.reject(new Error("link lost")) };
    const peer = forwardSyncPeer(remote as never);
    await expect(peer.missingBlobs([])).rejects.toThrow("link lost");
  });
});
