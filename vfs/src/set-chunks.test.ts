/**
 * Vfs.setChunks: a file pointed at chunks already stored (by hash, holes as ""), as sync's
 * receiver does once the sender's blobs arrived: the same bytes, chunk list and allocation as
 * the original, nothing re-read or re-hashed, and a clear error with nothing changed otherwise.
 */
import fc from "fast-check";
import { describe, expect, vfsTest } from "../test/backend.ts";
import { errorCode } from "../test/snapshot.ts";
import { CHUNK_SIZE } from "./limits.ts";
import type { SqlLike } from "./sql.ts";
import type { Vfs } from "./vfs.ts";

/** The chunk list of `path` as sync reads it: one hash per slot up to its size, "" for holes. */
function chunkList(vfs: Vfs, sql: SqlLike, path: string): string[] {
  const { ino, size } = vfs.stat(path);
  const list: string[] = Array.from({ length: Math.ceil(size / CHUNK_SIZE) }, () => "");
  for (const row of sql.exec<{ idx: number; hash: string }>(
    "SELECT idx, hash FROM chunks WHERE ino = ?",
    ino,
  ))
    list[row.idx] = row.hash;
  return list;
}

function filled(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 13 + seed) & 0xff;
  return out;
}

describe("setChunks", () => {
  vfsTest("a copy by hash reads the same bytes with the same chunks and allocation", (vfs, { sql }) => {
    const data = filled(2 * CHUNK_SIZE + 123, 1);
    vfs.writeFile("/a", data);
    const chunks = chunkList(vfs, sql, "/a");
    const before = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs")[0]?.n;
    const st = vfs.setChunks("/dir/b", chunks, data.length, { parents: true, mode: 0o600 });
    expect(st).toMatchObject({ type: "file", size: data.length, allocated: data.length, mode: 0o600 });
    expect(vfs.readFile("/dir/b")).toEqual(data);
    expect(chunkList(vfs, sql, "/dir/b")).toEqual(chunks);
    expect(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs")[0]?.n).toBe(before);
    expect(vfs.usage().usedBytes).toBe(2 * data.length);
  });

  vfsTest("replaces an existing file's content, keeping its inode; holes read as zeros", (vfs, { sql }) => {
    vfs.writeFile("/src", filled(CHUNK_SIZE + 10, 2));
    const [, tail] = chunkList(vfs, sql, "/src");
    const ino = vfs.writeFile("/f", "old content").ino;
    const st = vfs.setChunks("/f", ["", tail ?? ""], CHUNK_SIZE + 10);
    expect(st.ino).toBe(ino);
    expect(st.allocated).toBe(10);
    const read = vfs.readFile("/f");
    expect(read.subarray(0, CHUNK_SIZE)).toEqual(new Uint8Array(CHUNK_SIZE));
    expect(read.subarray(CHUNK_SIZE)).toEqual(filled(CHUNK_SIZE + 10, 2).subarray(CHUNK_SIZE));
  });

  vfsTest("a missing blob, chunks past the size or a bad size: EINVAL, nothing changes", (vfs) => {
    vfs.writeFile("/f", "keep");
    const rev = vfs.rev();
    expect(errorCode(() => vfs.setChunks("/f", ["0".repeat(64)], 5))).toBe("EINVAL");
    expect(errorCode(() => vfs.setChunks("/new", ["0".repeat(64)], 5))).toBe("EINVAL");
    expect(errorCode(() => vfs.setChunks("/f", ["", ""], 5))).toBe("EINVAL");
    expect(errorCode(() => vfs.setChunks("/f", [], -1))).toBe("EINVAL");
    expect(vfs.readText("/f")).toBe("keep");
    expect(vfs.exists("/new")).toBe(false);
    expect(vfs.rev()).toBe(rev);
  });

  vfsTest("is charged to the quota (ENOSPC, nothing changes)", (vfs, { sql }) => {
    vfs.writeFile("/a", filled(3000, 3));
    const chunks = chunkList(vfs, sql, "/a");
    vfs.setQuota(4000);
    expect(errorCode(() => vfs.setChunks("/b", chunks, 3000))).toBe("ENOSPC");
    expect(vfs.exists("/b")).toBe(false);
  });

  vfsTest("property: any layout written with pwrite and truncate is reproduced exactly", (vfs, { sql }) => {
    const piece = fc.record({
      offset: fc.integer({ min: 0, max: 3 * CHUNK_SIZE }),
      length: fc.integer({ min: 1, max: 4096 }),
      seed: fc.integer({ min: 0, max: 255 }),
    });
    let round = 0;
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), fc.nat(4 * CHUNK_SIZE), (writes, size) => {
        const src = `/src-${round}`;
        const dst = `/dst-${round++}`;
        vfs.writeFile(src, "");
        for (const w of writes) vfs.pwrite(src, w.offset, filled(w.length, w.seed));
        vfs.truncate(src, size);
        const st = vfs.setChunks(dst, chunkList(vfs, sql, src), size);
        expect(vfs.readFile(dst)).toEqual(vfs.readFile(src));
        expect(chunkList(vfs, sql, dst)).toEqual(chunkList(vfs, sql, src));
        expect(st.allocated).toBe(vfs.stat(src).allocated);
      }),
      { numRuns: 12 },
    );
  });
});
