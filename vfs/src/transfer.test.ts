/**
 * Fork: exportTree (paged, live or from a checkpoint) + missingBlobs/getBlob/putBlob +
 * importTree + finishImport into a second, fresh database gives an identical tree.
 */
import { test } from "vitest";
import { describe, expect, openTestVfs, TestClock, vfsTest, withFreshSql } from "../test/backend.ts";
import { DEEP_DIR, deepTree, richTree } from "../test/fixtures.ts";
import { expectFails } from "../test/snapshot.ts";
import { bytes, type DumpEntry, dumpTree } from "../test/tree.ts";
import type { TreeRecord } from "./transfer.ts";
import type { Vfs } from "./vfs.ts";

/** Everything a fork carries: every page of rows and the blobs they reference. */
interface Exported {
  pages: TreeRecord[][];
  blobs: Map<string, Uint8Array>;
}

function exportAll(vfs: Vfs, options: { checkpoint?: string; limit: number }): Exported {
  const pages: TreeRecord[][] = [];
  const blobs = new Map<string, Uint8Array>();
  let after: string | undefined;
  do {
    const page = vfs.exportTree({ ...options, ...(after === undefined ? {} : { after }) });
    expect(page.records.length).toBeLessThanOrEqual(options.limit);
    pages.push(page.records);
    for (const r of page.records) {
      if (r.table !== "chunks" || typeof r.row.hash !== "string" || blobs.has(r.row.hash)) continue;
      const blob = vfs.getBlob(r.row.hash);
      if (!blob) throw new Error(`source lacks blob ${r.row.hash}`);
      blobs.set(r.row.hash, blob);
    }
    after = page.next;
  } while (after !== undefined);
  return { pages, blobs };
}

/** Moves only the blobs the target lacks, then imports page by page. */
function importAll(target: Vfs, exported: Exported): void {
  const missing = target.missingBlobs([...exported.blobs.keys()]);
  for (const hash of missing) {
    const blob = exported.blobs.get(hash);
    if (!blob) throw new Error(`no blob ${hash}`);
    expect(target.putBlob(blob)).toBe(hash);
  }
  expect(target.missingBlobs([...exported.blobs.keys()])).toEqual([]);
  for (const page of exported.pages) target.importTree(page);
  target.finishImport();
}

describe("fork into a fresh database", () => {
  test("the fork has the same tree, inodes, xattrs and usage; its feed lists every path", async () => {
    let exported: Exported = { pages: [], blobs: new Map() };
    let expected: Record<string, DumpEntry> = {};
    let usage = 0;
    await withFreshSql((sql) => {
      const source = openTestVfs(sql, new TestClock(0));
      richTree(source);
      exported = exportAll(source, { limit: 5 });
      const whole = source.exportTree({ limit: 100_000 });
      expect(whole.next).toBeUndefined();
      expect(exported.pages.flat()).toEqual(whole.records);
      expected = dumpTree(source, { xattrs: true });
      usage = source.usage().usedBytes;
    });
    expect(exported.pages.length).toBeGreaterThan(3);
    await withFreshSql((sql) => {
      const fork = openTestVfs(sql, new TestClock(0));
      expect(fork.missingBlobs([...exported.blobs.keys()]).length).toBe(exported.blobs.size);
      importAll(fork, exported);
      expect(dumpTree(fork, { xattrs: true })).toEqual(expected);
      expect(fork.usage().usedBytes).toBe(usage);
      const paths = fork
        .changes("0", { limit: 10_000 })
        .changes.map((c) => c.path)
        .sort();
      expect(paths).toEqual(Object.keys(expected).sort());
      fork.writeFile("/src/new", "the fork is writable");
      fork.unlink("/main-link.ts");
      expect(fork.stat("/src/main.ts").nlink).toBe(1);
    });
  });

  test("a fork carries files deeper than PATH_MAX", async () => {
    let exported: Exported = { pages: [], blobs: new Map() };
    let expected: Record<string, DumpEntry> = {};
    await withFreshSql((sql) => {
      const source = openTestVfs(sql, new TestClock(0));
      deepTree(source);
      expected = dumpTree(source);
      exported = exportAll(source, { limit: 10 });
    });
    await withFreshSql((sql) => {
      const fork = openTestVfs(sql, new TestClock(0));
      importAll(fork, exported);
      expect(dumpTree(fork)).toEqual(expected);
      fork.writeFile(`${DEEP_DIR}/new`, "written in the fork");
      expect(fork.readText(`${DEEP_DIR}/hard`)).toBe("deep content");
    });
  });

  test("a fork from a checkpoint gets the checkpoint's tree, not the live one", async () => {
    let exported: Exported = { pages: [], blobs: new Map() };
    let expected: Record<string, DumpEntry> = {};
    await withFreshSql((sql) => {
      const source = openTestVfs(sql, new TestClock(0));
      richTree(source);
      expected = dumpTree(source, { xattrs: true });
      source.checkpoint("cp");
      source.rm("/src", { recursive: true });
      source.writeFile("/after", "not in the checkpoint");
      exported = exportAll(source, { checkpoint: "cp", limit: 7 });
    });
    await withFreshSql((sql) => {
      const fork = openTestVfs(sql, new TestClock(0));
      importAll(fork, exported);
      expect(dumpTree(fork, { xattrs: true })).toEqual(expected);
    });
  });
});

describe("fork into the same database after destroy", () => {
  vfsTest("destroy drops everything; an import restores the exported tree", (vfs, { sql, clock }) => {
    richTree(vfs);
    const expected = dumpTree(vfs, { xattrs: true });
    const exported = exportAll(vfs, { limit: 3 });
    vfs.destroy();
    const tables = sql.exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'",
    );
    expect(tables).toEqual([]);
    const fresh = openTestVfs(sql, clock);
    expect(fresh.list("/")).toEqual([]);
    expect(fresh.usage().usedBytes).toBe(0);
    importAll(fresh, exported);
    expect(dumpTree(fresh, { xattrs: true })).toEqual(expected);
  });
});

describe("transfer errors", () => {
  vfsTest("importTree refuses chunks whose blob is missing and imports nothing", (vfs, { sql }) => {
    const records: TreeRecord[] = [
      {
        table: "nodes",
        row: {
          ...sql.exec("SELECT * FROM nodes WHERE ino = 1")[0],
          ino: 2,
          type: "file",
          nlink: 1,
          size: 3,
          allocated: 3,
        },
      },
      { table: "dirents", row: { parent: 1, name: "f", ino: 2 } },
      { table: "chunks", row: { ino: 2, idx: 0, hash: "0".repeat(64), size: 3 } },
    ];
    expectFails(sql, "EINVAL", () => vfs.importTree(records));
    const hash = vfs.putBlob(bytes("abc"));
    const chunk = records[2];
    if (chunk) chunk.row.hash = hash;
    vfs.importTree(records);
    vfs.finishImport();
    expect(vfs.readText("/f")).toBe("abc");
    expect(vfs.usage().usedBytes).toBe(3);
  });

  vfsTest("exportTree: ENOENT for a missing checkpoint, EINVAL for a bad cursor", (vfs, { sql }) => {
    expectFails(sql, "ENOENT", () => vfs.exportTree({ checkpoint: "missing" }));
    expectFails(sql, "EINVAL", () => vfs.exportTree({ after: "garbage" }));
    expectFails(sql, "EINVAL", () => vfs.exportTree({ after: "1" }));
    expectFails(sql, "EINVAL", () => vfs.exportTree({ after: "0:-1" }));
    expectFails(sql, "EINVAL", () => vfs.exportTree({ limit: 0 }));
    expectFails(sql, "EINVAL", () => vfs.exportTree({ limit: 2.5 }));
  });

  vfsTest("importTree: EINVAL for an unknown table", (vfs, { sql }) => {
    const bogus = [{ table: "secrets", row: {} }] as unknown as TreeRecord[];
    expectFails(sql, "EINVAL", () => vfs.importTree(bogus));
  });
});
