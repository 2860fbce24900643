/** The sync wire's counters: round trips by method, changes of applied batches, blob bytes both ways. */
import { describe, expect, it } from "vitest";
import { countSyncCall, newSyncCounters, syncMetrics } from "./sync-counters.ts";
import type { SyncBatch } from "./wire.ts";

const blob = (n: number) => ({ hash: `h${n}`, data: new Uint8Array(n) });
const batch = (changes: number, blobs: number[]): SyncBatch =>
  ({
    id: "b",
    changes: Array.from({ length: changes }, () => ({})),
    blobs: blobs.map(blob),
  }) as unknown as SyncBatch;

describe("countSyncCall", () => {
  it("counts each call, the blob bytes sent and got, and the changes of applied batches only", () => {
    const c = newSyncCounters();
    countSyncCall(c, "hello", [{}], {});
    countSyncCall(c, "putBlobs", [[blob(100), blob(28)]], undefined);
    countSyncCall(c, "applyBatch", [batch(3, [10])], { status: "applied" });
    countSyncCall(c, "applyBatch", [batch(5, [])], { status: "stale" });
    countSyncCall(c, "getBlobs", [["h7"]], [blob(7)]);
    expect(c).toEqual({
      calls: { hello: 1, putBlobs: 1, applyBatch: 2, getBlobs: 1 },
      changes: 3,
      sentBytes: 138,
      returnedBytes: 7,
    });
    expect(syncMetrics(c)).toEqual({
      syncCalls: 5,
      syncChanges: 3,
      syncSentBytes: 138,
      syncReturnedBytes: 7,
      "sync.hello": 1,
      "sync.putBlobs": 1,
      "sync.applyBatch": 2,
      "sync.getBlobs": 1,
    });
  });
});
