/**
 * copyRange (copy_file_range): chunk-aligned copies share chunks (no new blobs, no bytes
 * read), the rest is copied as bytes; a property test against a byte model of Linux's
 * semantics; refusals change nothing.
 */
import fc from "fast-check";
import { test } from "vitest";
import { describe, expect, openTestVfs, vfsTest, withFreshSql } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import { BYTE_COPY_MAX } from "./copy-range.ts";
import { CHUNK_SIZE } from "./limits.ts";
import type { SqlLike } from "./sql.ts";
import type { Vfs } from "./vfs.ts";

/** `size` bytes of a pattern that differs per seed and per position (so shifted copies show). */
function pattern(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  // A prime period, so no chunk-sized shift maps the pattern onto itself.
  const period = Math.min(size, 65521);
  for (let i = 0; i < period; i++) out[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  for (let filled = period; filled < size; filled *= 2)
    out.copyWithin(filled, 0, Math.min(filled, size - filled));
  return out;
}

function blobCount(sql: SqlLike): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs")[0]?.n ?? 0;
}

function hashes(sql: SqlLike, vfs: Vfs, path: string): string[] {
  const ino = vfs.lstat(path).ino;
  return sql
    .exec<{ hash: string }>("SELECT hash FROM chunks WHERE ino = ? ORDER BY idx", ino)
    .map((r) => r.hash);
}

/** Copies until done or a zero count, as cp loops on copy_file_range. */
function copyAll(
  vfs: Vfs,
  from: string,
  fromOffset: number,
  to: string,
  toOffset: number,
  length: number,
): number {
  let done = 0;
  while (done < length) {
    const { copied } = vfs.copyRange(from, fromOffset + done, to, toOffset + done, length - done);
    if (copied === 0) break;
    done += copied;
  }
  return done;
}

/** Linux's result: the target with the source's bytes [from, from + n) at `to`, zeros in any gap. */
function model(source: Uint8Array, from: number, target: Uint8Array, to: number, length: number): Uint8Array {
  const n = Math.max(0, Math.min(length, source.length - from));
  if (n === 0) return target;
  const out = new Uint8Array(Math.max(target.length, to + n));
  out.set(target);
  out.set(source.subarray(from, from + n), to);
  return out;
}

describe("copyRange", () => {
  vfsTest("a chunk-aligned copy shares every chunk, the short last one too: no new blob", (vfs, { sql }) => {
    const data = pattern(3 * CHUNK_SIZE + 12345, 1);
    vfs.writeFile("/f", data);
    vfs.writeFile("/g", "");
    const blobs = blobCount(sql);
    expect(vfs.copyRange("/f", 0, "/g", 0, 2 ** 40)).toMatchObject({ copied: data.length });
    expect(blobCount(sql)).toBe(blobs);
    expect(hashes(sql, vfs, "/g")).toEqual(hashes(sql, vfs, "/f"));
    expect(vfs.readFile("/g")).toEqual(data);
    expect(vfs.lstat("/g")).toMatchObject({ size: data.length, allocated: data.length });
    expect(vfs.usage().usedBytes).toBe(2 * data.length);
  });

  vfsTest(
    "an unaligned copy moves bytes, at most BYTE_COPY_MAX per call",
    (vfs) => {
      const data = pattern(BYTE_COPY_MAX + 3 * CHUNK_SIZE, 2);
      vfs.writeFile("/f", data);
      vfs.writeFile("/g", "xyz");
      const first = vfs.copyRange("/f", 1, "/g", 3, data.length);
      expect(first.copied).toBe(BYTE_COPY_MAX);
      expect(copyAll(vfs, "/f", 1 + first.copied, "/g", 3 + first.copied, data.length)).toBe(
        data.length - 1 - first.copied,
      );
      const expected = model(data, 1, new TextEncoder().encode("xyz"), 3, data.length);
      expect(Buffer.compare(vfs.readFile("/g"), expected)).toBe(0);
    },
    120_000,
  );

  vfsTest("a source hole stays a hole; the target's time and change feed move", (vfs, { clock }) => {
    vfs.writeFile("/f", "");
    vfs.pwrite("/f", 2 * CHUNK_SIZE, "end");
    vfs.writeFile("/g", pattern(3 * CHUNK_SIZE, 3));
    const before = vfs.lstat("/g");
    const cursor = vfs.changes("").cursor;
    clock.advance(5000);
    vfs.copyRange("/f", 0, "/g", 0, 2 * CHUNK_SIZE);
    const after = vfs.lstat("/g");
    expect(after.allocated).toBe(CHUNK_SIZE);
    expect(vfs.readFile("/g", { length: 2 * CHUNK_SIZE })).toEqual(new Uint8Array(2 * CHUNK_SIZE));
    expect(after.mtime.sec).toBe(before.mtime.sec + 5);
    expect(vfs.changes(cursor).changes.map((c) => c.path)).toEqual(["/g"]);
  });

  vfsTest("at or past the source's end: 0, nothing changes", (vfs, { sql }) => {
    vfs.writeFile("/f", "abc");
    vfs.writeFile("/g", "");
    const before = blobCount(sql);
    expect(vfs.copyRange("/f", 3, "/g", 0, 10).copied).toBe(0);
    expect(vfs.copyRange("/f", 99, "/g", 0, 10).copied).toBe(0);
    expect(vfs.lstat("/g").size).toBe(0);
    expect(blobCount(sql)).toBe(before);
  });

  vfsTest("refusals change nothing", (vfs, { sql }) => {
    vfs.writeFile("/f", pattern(2 * CHUNK_SIZE, 4));
    vfs.mkdir("/d");
    vfs.writeFile("/g", "");
    expectFails(sql, "EINVAL", () => vfs.copyRange("/f", 0, "/f", CHUNK_SIZE, CHUNK_SIZE + 1));
    expectFails(sql, "EISDIR", () => vfs.copyRange("/f", 0, "/d", 0, 10));
    expectFails(sql, "EISDIR", () => vfs.copyRange("/d", 0, "/g", 0, 10));
    expectFails(sql, "ENOENT", () => vfs.copyRange("/f", 0, "/missing", 0, 10));
    expectFails(sql, "EINVAL", () => vfs.copyRange("/f", -1, "/g", 0, 10));
    vfs.setQuota(3 * CHUNK_SIZE);
    expectFails(sql, "ENOSPC", () => vfs.copyRange("/f", 0, "/g", 0, 2 * CHUNK_SIZE));
  });

  vfsTest("one file: a copy to a range that does not overlap shares the chunks", (vfs, { sql }) => {
    const data = pattern(2 * CHUNK_SIZE, 5);
    vfs.writeFile("/f", data);
    expect(vfs.copyRange("/f", 0, "/f", 4 * CHUNK_SIZE, 2 * CHUNK_SIZE).copied).toBe(2 * CHUNK_SIZE);
    const [a, b, ...rest] = hashes(sql, vfs, "/f");
    expect(rest).toEqual([a, b]);
    expect(vfs.readFile("/f", { offset: 4 * CHUNK_SIZE })).toEqual(data);
  });
});

const SIZES = [0, 10, CHUNK_SIZE - 1, CHUNK_SIZE, CHUNK_SIZE + 7, 2 * CHUNK_SIZE + 100, 3 * CHUNK_SIZE];
const OFFSETS = [0, 1, 5, CHUNK_SIZE, CHUNK_SIZE + 3, 2 * CHUNK_SIZE, 4 * CHUNK_SIZE];
const LENGTHS = [0, 1, 100, CHUNK_SIZE, 2 * CHUNK_SIZE + 100, 2 ** 40];

test("property: copyRange reads back as the byte model, for any sizes, offsets and lengths", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...SIZES),
      fc.constantFrom(...SIZES),
      fc.constantFrom(...OFFSETS),
      fc.constantFrom(...OFFSETS),
      fc.constantFrom(...LENGTHS),
      fc.boolean(),
      (sourceSize, targetSize, from, to, length, sparse) =>
        withFreshSql((sql) => {
          const vfs = openTestVfs(sql);
          const source = pattern(sourceSize, 6);
          // A sparse source: its middle chunk was never written (a hole reading as zeros).
          if (sparse && sourceSize > 2 * CHUNK_SIZE) {
            source.fill(0, CHUNK_SIZE, 2 * CHUNK_SIZE);
            vfs.writeFile("/s", source.subarray(0, CHUNK_SIZE));
            vfs.pwrite("/s", 2 * CHUNK_SIZE, source.subarray(2 * CHUNK_SIZE));
          } else vfs.writeFile("/s", source);
          const target = pattern(targetSize, 7);
          vfs.writeFile("/t", target);
          const expected = model(source, from, target, to, length);
          const wanted = Math.max(0, Math.min(length, sourceSize - from));
          expect(copyAll(vfs, "/s", from, "/t", to, length)).toBe(wanted);
          const got = vfs.readFile("/t");
          expect(got.length).toBe(expected.length);
          expect(Buffer.compare(got, expected)).toBe(0);
          expect(vfs.lstat("/t").allocated).toBeLessThanOrEqual(expected.length);
          expect(vfs.readFile("/s")).toEqual(source);
        }),
    ),
    { numRuns: 50 },
  );
}, 120_000);
