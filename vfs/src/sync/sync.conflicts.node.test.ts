/**
 * Sync property 7 of ARCHITECTURE.md and echo suppression, two-sided: a path changed on both
 * sides resolves the same way whichever side sees it first (the DO's version stays, the
 * container's is kept as a reported copy), and nothing applied from the peer is sent back.
 */
import { describe, expect, test } from "vitest";
import { settle } from "../../test/sync-harness.ts";
import { newPair, tree } from "../../test/sync-pairs.ts";
import { batchHashes } from "./receive.ts";
import type { SyncConflict } from "./wire.ts";

describe("property 7: conflicts keep both versions", () => {
  async function conflicted(order: "push-first" | "upload-first" | "crossing") {
    const pair = newPair();
    pair.do.vfs.writeFile("/f.txt", "base");
    await settle(pair);
    pair.do.vfs.writeFile("/f.txt", "from the DO");
    pair.mirror.vfs.writeFile("/f.txt", "from the container");
    let conflicts: SyncConflict[] = [];
    if (order === "crossing") {
      const up = pair.mirror.endpoint.nextBatch();
      const down = pair.do.endpoint.nextBatch();
      if (!up || !down) throw new Error("expected batches");
      const atDo = pair.do.endpoint.applyBatch(up.batch);
      const atMirror = pair.mirror.endpoint.applyBatch(down.batch);
      pair.mirror.endpoint.acknowledge(up.batch, atDo);
      pair.do.endpoint.acknowledge(down.batch, atMirror);
      conflicts = [...atDo.conflicts, ...atMirror.conflicts];
    }
    const reports =
      order === "upload-first" ? [await pair.upload.drain(), ...(await settle(pair))] : await settle(pair);
    conflicts.push(...reports.flatMap((r) => r.conflicts));
    return { pair, conflicts };
  }

  for (const order of ["push-first", "upload-first", "crossing"] as const) {
    test(`${order}: the DO's version stays, the container's is kept as a reported copy`, async () => {
      const { pair, conflicts } = await conflicted(order);
      const copy = conflicts[0]?.copy;
      expect(conflicts[0]).toMatchObject({ path: "/f.txt", winner: "do", reason: "content" });
      expect(copy).toMatch(/^\/f\.txt\.conflict-container-[0-9a-f]{8}$/);
      expect(pair.do.vfs.readText("/f.txt")).toBe("from the DO");
      expect(pair.do.vfs.readText(copy ?? "")).toBe("from the container");
      expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
      expect(pair.do.vfs.list("/").map((e) => e.name)).toHaveLength(2);
    });
  }

  test("crossing: a file the DO touched and the container deleted stays, and a later delete reaches both", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/a", "x");
    await settle(pair);
    pair.do.vfs.utimes("/a", { sec: 1, nsec: 0 }, { sec: 1, nsec: 0 });
    pair.mirror.vfs.rm("/a");
    const up = pair.mirror.endpoint.nextBatch();
    const down = pair.do.endpoint.nextBatch();
    if (!up || !down) throw new Error("expected batches");
    pair.mirror.endpoint.acknowledge(up.batch, pair.do.endpoint.applyBatch(up.batch));
    pair.do.endpoint.acknowledge(down.batch, pair.mirror.endpoint.applyBatch(down.batch));
    expect(pair.mirror.vfs.readText("/a")).toBe("x");
    pair.do.vfs.rm("/a");
    await settle(pair);
    expect(pair.mirror.vfs.exists("/a")).toBe(false);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("deleted on the DO, changed in the container: the change survives as a copy", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/dir/f", "base", { parents: true });
    await settle(pair);
    pair.do.vfs.rm("/dir", { recursive: true });
    pair.mirror.vfs.writeFile("/dir/f", "edited");
    pair.mirror.vfs.writeFile("/dir/new", "new");
    const reports = await settle(pair);
    const conflicts = reports.flatMap((r) => r.conflicts);
    expect(
      conflicts.some((c) => c.reason === "content" && c.copy?.startsWith("/dir/f.conflict-container-")),
    ).toBe(true);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
    expect(pair.do.vfs.readText("/dir/new")).toBe("new");
  });

  test("an entry added under a directory the other side deleted meanwhile is kept (crossing batches)", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/b/old", "synced", { parents: true });
    await settle(pair);
    pair.mirror.vfs.writeFile("/b/new", "unsynced");
    pair.do.vfs.rm("/b", { recursive: true });
    const up = pair.mirror.endpoint.nextBatch();
    const down = pair.do.endpoint.nextBatch();
    if (!up || !down) throw new Error("expected batches");
    up.batch.blobs = pair.mirror.endpoint.getBlobs(batchHashes(up.batch.changes));
    // The DO learns of /b/new only after it built its deletion of /b.
    pair.mirror.endpoint.acknowledge(up.batch, pair.do.endpoint.applyBatch(up.batch));
    const atMirror = pair.mirror.endpoint.applyBatch(down.batch);
    pair.do.endpoint.acknowledge(down.batch, atMirror);
    expect(atMirror.conflicts).toEqual([{ path: "/b", winner: "do", reason: "kept" }]);
    expect(pair.mirror.vfs.readText("/b/new")).toBe("unsynced");
    await settle(pair);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
    expect(pair.do.vfs.list("/b").map((e) => e.name)).toEqual(["new"]);
  });

  test("a directory in the container where the DO made a file: the directory is kept as a copy", async () => {
    const pair = newPair();
    await settle(pair);
    pair.do.vfs.writeFile("/x", "file on the DO");
    pair.mirror.vfs.writeFile("/x/inner", "inside", { parents: true });
    const reports = await settle(pair);
    const conflicts = reports.flatMap((r) => r.conflicts);
    expect(conflicts[0]).toMatchObject({ path: "/x", winner: "do", reason: "content" });
    expect(pair.do.vfs.readText("/x")).toBe("file on the DO");
    expect(pair.do.vfs.readText(`${conflicts[0]?.copy}/inner`)).toBe("inside");
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });
});

describe("no echo", () => {
  test("changes applied from the peer are not sent back", async () => {
    const pair = newPair();
    for (let i = 0; i < 50; i++) pair.do.vfs.writeFile(`/f${i}`, `content ${i}`);
    await pair.push.drain();
    const doRev = pair.do.vfs.rev();
    const echo = await pair.upload.drain();
    expect(echo.changes).toBe(0);
    expect(pair.do.vfs.rev()).toBe(doRev);

    for (let i = 0; i < 50; i++) pair.mirror.vfs.writeFile(`/g${i}`, `content ${i}`);
    await pair.upload.drain();
    const mirrorRev = pair.mirror.vfs.rev();
    expect((await pair.push.drain()).changes).toBe(0);
    expect(pair.mirror.vfs.rev()).toBe(mirrorRev);
  });
});
