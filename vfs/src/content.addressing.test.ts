/**
 * Content addressing: a chunk is stored once under its sha-256 however many files and
 * offsets use it, and reads fetch only the chunks of the requested range.
 */
import { describe, expect, openTestVfs, sha256Hex, vfsTest } from "../test/backend.ts";
import { CHUNK_SIZE } from "./limits.ts";
import type { SqlLike, SqlValue } from "./sql.ts";

function count(sql: SqlLike, table: string): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)[0]?.n ?? -1;
}

function filled(length: number, value: number): Uint8Array {
  return new Uint8Array(length).fill(value);
}

/** A SqlLike that counts the blob reads passing through it. */
function countingBlobReads(sql: SqlLike): { sql: SqlLike; reads: () => number; reset: () => void } {
  let reads = 0;
  return {
    sql: {
      exec<T>(query: string, ...bindings: SqlValue[]): T[] {
        if (query.startsWith("SELECT data FROM blobs")) reads++;
        return sql.exec<T>(query, ...bindings);
      },
      transaction: (fn) => sql.transaction(fn),
    },
    reads: () => reads,
    reset: () => {
      reads = 0;
    },
  };
}

describe("content addressing", () => {
  vfsTest("identical content in two files is stored once", (vfs, { sql }) => {
    const data = new Uint8Array(2 * CHUNK_SIZE + 500);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7 + (i >> 20)) & 0xff;
    vfs.writeFile("/a", data);
    expect(count(sql, "blobs")).toBe(3);
    vfs.writeFile("/b", data);
    vfs.writeFile("/a", data);
    expect(count(sql, "blobs")).toBe(3);
    expect(count(sql, "chunks")).toBe(6);
    expect(vfs.readFile("/b")).toEqual(data);
  });

  vfsTest("equal chunks within one file share a blob, keyed by their sha-256", (vfs, { sql }) => {
    vfs.writeFile("/z", filled(3 * CHUNK_SIZE, 9));
    expect(count(sql, "blobs")).toBe(1);
    const rows = sql.exec<{ hash: string; size: number }>("SELECT hash, size FROM chunks ORDER BY idx");
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.hash))).toEqual(new Set([sha256Hex(filled(CHUNK_SIZE, 9))]));
    vfs.writeFile("/small", "hello");
    expect(sql.exec("SELECT hash, size FROM blobs WHERE size = 5")).toEqual([
      { hash: sha256Hex(new TextEncoder().encode("hello")), size: 5 },
    ]);
  });

  vfsTest("streams, pwrite and putBlob reuse existing blobs", async (vfs, { sql }) => {
    vfs.writeFile("/a", filled(CHUNK_SIZE, 1));
    async function* body(): AsyncGenerator<Uint8Array> {
      yield filled(CHUNK_SIZE / 2, 1);
      yield filled(CHUNK_SIZE / 2, 1);
    }
    await vfs.writeStream("/b", body());
    vfs.writeFile("/c", filled(10, 2));
    vfs.pwrite("/c", 0, filled(CHUNK_SIZE, 1));
    expect(vfs.putBlob(filled(CHUNK_SIZE, 1))).toBe(sha256Hex(filled(CHUNK_SIZE, 1)));
    expect(count(sql, "blobs")).toBe(2);
  });
});

describe("ranged reads", () => {
  vfsTest("fetch only the chunks a range overlaps, and none for holes", async (vfs, { sql }) => {
    const counted = countingBlobReads(sql);
    const view = openTestVfs(counted.sql);
    const data = new Uint8Array(4 * CHUNK_SIZE);
    for (let c = 0; c < 4; c++) data.fill(c + 1, c * CHUNK_SIZE, (c + 1) * CHUNK_SIZE);
    vfs.writeFile("/f", data);
    const expectReads = (n: number, read: () => unknown) => {
      counted.reset();
      read();
      expect(counted.reads()).toBe(n);
    };
    expectReads(1, () => view.readFile("/f", { offset: 2 * CHUNK_SIZE + 10, length: 100 }));
    expectReads(2, () => view.readFile("/f", { offset: CHUNK_SIZE - 1, length: 2 }));
    expectReads(1, () => view.readFile("/f", { offset: 3 * CHUNK_SIZE }));
    expectReads(0, () => view.readFile("/f", { offset: 4 * CHUNK_SIZE, length: 10 }));
    expectReads(4, () => view.readFile("/f"));
    expectReads(1, () => view.pwrite("/f", CHUNK_SIZE + 5, "patch"));

    view.truncate("/f", 8 * CHUNK_SIZE);
    expectReads(0, () => view.readFile("/f", { offset: 5 * CHUNK_SIZE, length: CHUNK_SIZE }));

    counted.reset();
    const reader = view.readStream("/f", { offset: CHUNK_SIZE + 100, length: 10 }).getReader();
    const first = await reader.read();
    expect(first.value).toEqual(new Uint8Array(10).fill(2));
    expect((await reader.read()).done).toBe(true);
    expect(counted.reads()).toBe(1);

    // Whole chunks replaced need none of their old bytes.
    expectReads(0, () => view.pwrite("/f", CHUNK_SIZE, filled(2 * CHUNK_SIZE, 7)));
    expect(view.readFile("/f", { offset: CHUNK_SIZE - 1, length: 2 * CHUNK_SIZE + 2 })).toEqual(
      new Uint8Array([1, ...filled(2 * CHUNK_SIZE, 7), 4]),
    );
  });
});
