/** Checkpoints: create, list, restore, delete; names; cheap copies; the feed and usage after a restore. */
import { describe, expect, TEST_EPOCH_MS, vfsTest } from "../test/backend.ts";
import { DEEP_DIR, deepTree, richTree } from "../test/fixtures.ts";
import { expectFails } from "../test/snapshot.ts";
import { bytes, dumpTree } from "../test/tree.ts";
import { CHUNK_SIZE } from "./limits.ts";
import type { SqlLike } from "./sql.ts";

function count(sql: SqlLike, table: string): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)[0]?.n ?? -1;
}

describe("checkpoints", () => {
  vfsTest("create returns its info; list sorts by creation", (vfs, { clock }) => {
    vfs.writeFile("/f", "x");
    const a = vfs.checkpoint("b-second-name");
    expect(a).toEqual({
      name: "b-second-name",
      rev: vfs.rev(),
      createdAt: new Date(TEST_EPOCH_MS).toISOString(),
    });
    clock.advance(1000);
    vfs.checkpoint("a.first_name");
    expect(vfs.listCheckpoints().map((c) => c.name)).toEqual(["b-second-name", "a.first_name"]);
  });

  vfsTest("restore brings back the whole tree: content, links, attributes, xattrs, usage", (vfs) => {
    richTree(vfs);
    const before = dumpTree(vfs, { xattrs: true });
    const usage = vfs.usage().usedBytes;
    vfs.checkpoint("base");
    vfs.writeFile("/src/main.ts", "changed");
    vfs.rm("/src/lib", { recursive: true });
    vfs.writeFile("/new-file", new Uint8Array(5000));
    vfs.rename("/sparse", "/moved");
    vfs.chmod("/fifo", 0o644);
    vfs.removexattr("/src/main.ts", "user.mime");
    vfs.restoreCheckpoint("base");
    expect(dumpTree(vfs, { xattrs: true })).toEqual(before);
    expect(vfs.usage().usedBytes).toBe(usage);
    expect(vfs.readFile("/sparse", { offset: 2 * CHUNK_SIZE + 1, length: 4 })).toEqual(bytes("tail"));
    vfs.writeFile("/after-restore", "works");
    expect(vfs.stat("/after-restore").nlink).toBe(1);
  });

  vfsTest("restore brings back files deeper than PATH_MAX", (vfs) => {
    deepTree(vfs);
    const before = dumpTree(vfs);
    vfs.checkpoint("deep");
    vfs.rm(`/${DEEP_DIR.split("/")[1]}`, { recursive: true });
    vfs.restoreCheckpoint("deep");
    expect(dumpTree(vfs)).toEqual(before);
    expect(vfs.readText(`${DEEP_DIR}/link`)).toBe("deep content");
  });

  vfsTest("a checkpoint copies metadata only and is unaffected by later changes", (vfs, { sql }) => {
    richTree(vfs);
    const blobs = count(sql, "blobs");
    vfs.checkpoint("one");
    expect(count(sql, "blobs")).toBe(blobs);
    const snapshot = dumpTree(vfs);
    vfs.restoreCheckpoint("one");
    vfs.writeFile("/src/main.ts", "edited after restore");
    vfs.restoreCheckpoint("one");
    expect(dumpTree(vfs)).toEqual(snapshot);
  });

  vfsTest("restore is one revision; the feed reports old paths deleted and restored ones present", (vfs) => {
    vfs.writeFile("/kept", "1");
    vfs.writeFile("/changed", "old");
    vfs.checkpoint("cp");
    vfs.writeFile("/changed", "new");
    vfs.mkdir("/extra/deep", { recursive: true });
    const cursor = String(vfs.rev());
    vfs.restoreCheckpoint("cp");
    expect(vfs.rev()).toBe(Number(cursor) + 1);
    const page = vfs.changes(cursor);
    const present = page.changes
      .filter((c) => c.stat)
      .map((c) => c.path)
      .sort();
    const gone = page.changes
      .filter((c) => !c.stat)
      .map((c) => c.path)
      .sort();
    expect(present).toEqual(["/", "/changed", "/kept"]);
    expect(gone).toEqual(["/extra", "/extra/deep"]);
    expect(page.changes.find((c) => c.path === "/changed")?.stat?.size).toBe(3);
  });

  vfsTest("delete removes a checkpoint; others stay restorable", (vfs) => {
    vfs.writeFile("/f", "1");
    vfs.checkpoint("one");
    vfs.writeFile("/f", "2");
    vfs.checkpoint("two");
    vfs.deleteCheckpoint("one");
    expect(vfs.listCheckpoints().map((c) => c.name)).toEqual(["two"]);
    vfs.writeFile("/f", "3");
    vfs.restoreCheckpoint("two");
    expect(vfs.readText("/f")).toBe("2");
    vfs.checkpoint("one");
  });

  vfsTest("checkpoints persist across reopen", (vfs, { reopen }) => {
    vfs.writeFile("/f", "1");
    vfs.checkpoint("cp");
    vfs.writeFile("/f", "2");
    const again = reopen();
    expect(again.listCheckpoints().map((c) => c.name)).toEqual(["cp"]);
    again.restoreCheckpoint("cp");
    expect(again.readText("/f")).toBe("1");
  });

  vfsTest("errors: EEXIST, ENOENT, EINVAL names", (vfs, { sql }) => {
    vfs.checkpoint("cp");
    expectFails(sql, "EEXIST", () => vfs.checkpoint("cp"));
    expectFails(sql, "ENOENT", () => vfs.restoreCheckpoint("missing"));
    expectFails(sql, "ENOENT", () => vfs.deleteCheckpoint("missing"));
    for (const bad of ["", ".hidden", "-dash", "a/b", "a b", "ü", "n".repeat(65), "x\0"]) {
      expectFails(sql, "EINVAL", () => vfs.checkpoint(bad));
      expectFails(sql, "EINVAL", () => vfs.restoreCheckpoint(bad));
      expectFails(sql, "EINVAL", () => vfs.deleteCheckpoint(bad));
    }
    vfs.checkpoint("n".repeat(64));
  });
});
