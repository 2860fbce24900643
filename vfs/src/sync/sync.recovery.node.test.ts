/**
 * Sync properties 5 and 6 of ARCHITECTURE.md, two-sided: a batch applies once whatever the
 * link loses (request or answer), and reconnects reconcile cursors, re-seed an empty mirror
 * and recover from a pruned change feed with a full listing.
 */
import { describe, expect, test } from "vitest";
import { linkPair, richTree, settle } from "../../test/sync-harness.ts";
import { memorySide, newPair, tree } from "../../test/sync-pairs.ts";
import { batchHashes } from "./receive.ts";

describe("property 5: a batch applies once and atomically", () => {
  test("a lost answer is settled on reconnect without applying twice", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/a", "one");
    pair.toMirror.failNext("applyBatch", "after");
    await expect(pair.push.drain()).rejects.toThrow("before the answer");
    expect(pair.mirror.vfs.readText("/a")).toBe("one");
    const rev = pair.mirror.vfs.rev();
    const again = await pair.push.drain();
    expect(again.changes).toBe(0);
    expect(pair.mirror.vfs.rev()).toBe(rev);
    // The DO learnt the batch arrived: its next edit is no conflict (and leaves no copy).
    pair.do.vfs.writeFile("/a", "two");
    const down = await pair.push.drain();
    expect(down.conflicts).toEqual([]);
    expect(pair.mirror.vfs.list("/").map((e) => e.name)).toEqual(["a"]);
    expect(pair.mirror.vfs.readText("/a")).toBe("two");
  });

  test("answers lost both ways settle in the order the batches were built", async () => {
    const pair = newPair();
    pair.mirror.vfs.writeFile("/b", "mirror one");
    pair.do.vfs.writeFile("/b", "do one");
    pair.toDo.failNext("applyBatch", "after");
    await expect(pair.upload.drain()).rejects.toThrow("before the answer");
    pair.toMirror.failNext("applyBatch", "after");
    await expect(pair.push.drain()).rejects.toThrow("before the answer");
    expect(pair.mirror.vfs.readText("/b")).toBe("do one");
    // An edit made after seeing the DO's version is no conflict, whatever answers were lost.
    pair.mirror.vfs.writeFile("/b", "mirror two");
    pair.toDo.failNext("applyBatch", "after");
    await expect(pair.upload.drain()).rejects.toThrow("before the answer");
    const reports = await settle(pair);
    expect(reports.flatMap((r) => r.conflicts)).toEqual([]);
    expect(pair.do.vfs.readText("/b")).toBe("mirror two");
    expect(pair.do.vfs.list("/").map((e) => e.name)).toHaveLength(2);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a lost request is sent again", async () => {
    const pair = newPair();
    pair.mirror.vfs.writeFile("/a", "one");
    pair.toDo.failNext("applyBatch", "before");
    await expect(pair.upload.drain()).rejects.toThrow("before the call");
    expect(pair.do.vfs.exists("/a")).toBe(false);
    await pair.upload.drain();
    expect(pair.do.vfs.readText("/a")).toBe("one");
  });

  test("the same batch delivered twice is a duplicate and changes nothing", async () => {
    const pair = newPair();
    await pair.push.drain();
    await pair.upload.drain();
    pair.mirror.vfs.writeFile("/a", "one");
    const outgoing = pair.mirror.endpoint.nextBatch();
    if (!outgoing) throw new Error("expected a batch");
    outgoing.batch.blobs = pair.mirror.endpoint.getBlobs(batchHashes(outgoing.batch.changes));
    const first = pair.do.endpoint.applyBatch(structuredClone(outgoing.batch));
    const rev = pair.do.vfs.rev();
    const second = pair.do.endpoint.applyBatch(structuredClone(outgoing.batch));
    expect(first.status).toBe("applied");
    expect(second).toEqual({ ...first, status: "duplicate" });
    expect(pair.do.vfs.rev()).toBe(rev);
  });
});

describe("property 6: reconnect and re-seed", () => {
  test("a mirror that restarted empty is re-seeded from the DO", async () => {
    const pair = newPair();
    richTree(pair.do.vfs);
    await settle(pair);
    const fresh = linkPair(pair.do, memorySide("container"));
    await fresh.upload.connect();
    await settle(fresh);
    expect(tree(fresh.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a cursor older than the pruned feed triggers a full listing that removes what the DO deleted", async () => {
    let now = 1_000_000;
    const doSide = memorySide("do", () => now);
    const pair = linkPair(doSide, memorySide("container"));
    doSide.vfs.writeFile("/keep", "k");
    doSide.vfs.writeFile("/gone/a", "a", { parents: true });
    doSide.vfs.writeFile("/gone/b", "b");
    await settle(pair);
    pair.mirror.vfs.writeFile("/mine", "unsynced");
    doSide.vfs.rm("/gone", { recursive: true });
    doSide.vfs.gc({ windowMs: 0 });
    now += 10_000;
    expect(doSide.vfs.gc({ windowMs: 1 }).changesPruned).toBeGreaterThan(0);
    const pushed = await pair.push.drain();
    expect(pushed.batches).toBeGreaterThan(0);
    expect(pair.mirror.vfs.exists("/gone")).toBe(false);
    expect(pair.mirror.vfs.readText("/mine")).toBe("unsynced");
    await settle(pair);
    expect(tree(pair.mirror.vfs)).toEqual(tree(doSide.vfs));
  });
});
