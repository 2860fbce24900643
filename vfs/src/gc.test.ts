/** Garbage collection with a fixed clock: blobs and change records go only after the safety window. */
import { describe, expect, sha256Hex, vfsTest } from "../test/backend.ts";
import { bytes } from "../test/tree.ts";
import { GC_WINDOW_MS } from "./gc.ts";
import type { SqlLike } from "./sql.ts";

const W = GC_WINDOW_MS;

function hasBlob(sql: SqlLike, content: string): boolean {
  return sql.exec("SELECT 1 FROM blobs WHERE hash = ?", sha256Hex(bytes(content))).length > 0;
}

describe("blob GC", () => {
  vfsTest("an unreferenced blob goes only once it is older than the window", (vfs, { sql, clock }) => {
    vfs.writeFile("/f", "version one");
    vfs.writeFile("/f", "version two");
    expect(vfs.gc()).toEqual({ blobsDeleted: 0, changesPruned: 0, placeholdersDeleted: [] });
    clock.advance(W);
    expect(vfs.gc().blobsDeleted).toBe(0);
    expect(hasBlob(sql, "version one")).toBe(true);
    clock.advance(1);
    expect(vfs.gc().blobsDeleted).toBe(1);
    expect(hasBlob(sql, "version one")).toBe(false);
    expect(hasBlob(sql, "version two")).toBe(true);
    expect(vfs.readText("/f")).toBe("version two");
    expect(vfs.gc().blobsDeleted).toBe(0);
  });

  vfsTest("the window is configurable", (vfs, { clock }) => {
    vfs.writeFile("/f", "a");
    vfs.unlink("/f");
    clock.advance(1000);
    expect(vfs.gc({ windowMs: 1000 }).blobsDeleted).toBe(0);
    clock.advance(1);
    expect(vfs.gc({ windowMs: 1000 }).blobsDeleted).toBe(1);
  });

  vfsTest("blobs referenced by a file or only by a checkpoint are kept", (vfs, { sql, clock }) => {
    vfs.writeFile("/kept", "in the tree");
    vfs.writeFile("/cp", "only in the checkpoint");
    vfs.checkpoint("snap");
    vfs.unlink("/cp");
    vfs.link("/kept", "/kept2");
    vfs.unlink("/kept");
    clock.advance(2 * W);
    expect(vfs.gc().blobsDeleted).toBe(0);
    expect(hasBlob(sql, "in the tree")).toBe(true);
    expect(hasBlob(sql, "only in the checkpoint")).toBe(true);
    vfs.deleteCheckpoint("snap");
    expect(vfs.gc().blobsDeleted).toBe(1);
    expect(hasBlob(sql, "only in the checkpoint")).toBe(false);
  });

  vfsTest("storing a blob again restarts its window", (vfs, { sql, clock }) => {
    vfs.writeFile("/f", "again");
    vfs.unlink("/f");
    clock.advance(W / 2);
    vfs.writeFile("/g", "again");
    vfs.unlink("/g");
    clock.advance(W / 2 + 1);
    expect(vfs.gc().blobsDeleted).toBe(0);
    clock.advance(W / 2);
    expect(vfs.gc().blobsDeleted).toBe(1);
    expect(hasBlob(sql, "again")).toBe(false);
  });

  vfsTest("putBlob ahead of an import is protected by the window too", (vfs, { sql, clock }) => {
    const hash = vfs.putBlob(bytes("loose"));
    expect(vfs.missingBlobs([hash])).toEqual([]);
    clock.advance(W);
    vfs.gc();
    expect(vfs.getBlob(hash)).toEqual(bytes("loose"));
    clock.advance(1);
    vfs.gc();
    expect(vfs.getBlob(hash)).toBeUndefined();
    expect(vfs.missingBlobs([hash])).toEqual([hash]);
    expect(sql.exec("SELECT COUNT(*) AS n FROM blobs")[0]?.n).toBe(0);
  });

  vfsTest("a stream's chunks survive a GC that runs while it is still streaming", async (vfs, { clock }) => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* slow(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(1 << 20).fill(3);
      await gate;
      yield bytes("tail");
    }
    const pending = vfs.writeStream("/s", slow());
    await Promise.resolve();
    clock.advance(W - 1);
    expect(vfs.gc().blobsDeleted).toBe(0);
    release();
    await pending;
    expect(vfs.readFile("/s", { offset: 0, length: 2 })).toEqual(new Uint8Array([3, 3]));
    expect(vfs.stat("/s").size).toBe((1 << 20) + 4);
  });
});

describe("change-record pruning", () => {
  vfsTest("deletions are pruned after the window, live records never", (vfs, { sql, clock }) => {
    vfs.writeFile("/live", "x");
    vfs.mkdir("/dead/sub", { recursive: true });
    vfs.rm("/dead", { recursive: true });
    const count = (deleted: number) =>
      sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM changes WHERE deleted = ?", deleted)[0]?.n;
    expect(count(1)).toBe(2);
    expect(vfs.gc().changesPruned).toBe(0);
    clock.advance(W);
    expect(vfs.gc().changesPruned).toBe(0);
    clock.advance(1);
    expect(vfs.gc().changesPruned).toBe(2);
    expect(count(1)).toBe(0);
    expect(count(0)).toBe(2);
    clock.advance(10 * W);
    expect(vfs.gc().changesPruned).toBe(0);
    expect(count(0)).toBe(2);
  });

  vfsTest("deletions newer than the last mark past the window are kept", (vfs, { clock }) => {
    vfs.writeFile("/a", "1");
    vfs.unlink("/a");
    vfs.gc();
    clock.advance(W / 2);
    vfs.writeFile("/b", "2");
    vfs.unlink("/b");
    clock.advance(W / 2 + 1);
    expect(vfs.gc().changesPruned).toBe(1);
    expect(vfs.changes("0").changes.map((c) => c.path)).toEqual(["/", "/b"]);
    clock.advance(W);
    expect(vfs.gc().changesPruned).toBe(0);
    clock.advance(1);
    expect(vfs.gc().changesPruned).toBe(1);
  });

  vfsTest("revision marks stay bounded however often GC runs", (vfs, { sql, clock }) => {
    for (let i = 0; i < 60; i++) {
      vfs.writeFile(`/f${i}`, "x");
      vfs.unlink(`/f${i}`);
      vfs.gc();
      clock.advance(W / 10);
    }
    const marks = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM rev_marks")[0]?.n ?? 0;
    expect(marks).toBeLessThanOrEqual(12);
    expect(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM changes")[0]?.n).toBeLessThanOrEqual(12);
  });
});
