/** LocalFs.copyRange (FUSE copy_file_range): buffered data of both files counts, chunks are shared. */
import { CHUNK_SIZE } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestLocalFs } from "../../test/mount-harness.ts";
import type { Mirror } from "../mirror/open-mirror.ts";
import type { LocalFs } from "./local-fs.ts";

let mirror: Mirror;
let fs: LocalFs;
let close: () => void;

beforeEach(() => {
  ({ mirror, fs, close } = openTestLocalFs("computerd-localfs-copy-"));
});

afterEach(() => close());

function filled(size: number, value: number): Uint8Array {
  return new Uint8Array(size).fill(value);
}

function read(path: string): Uint8Array {
  const fh = fs.open(path, 0);
  const buf = new Uint8Array(fs.stat(path).size);
  const n = fs.read(fh, path, buf, 0, buf.length);
  fs.release(fh);
  return buf.subarray(0, n);
}

/** copy_file_range of /src (open as `src`) to /dst (open as `dst`), both from offset 0. */
function copyFromStart(src: number, dst: number, length: number): number {
  return fs.copyRange({ fh: src, path: "/src", offset: 0 }, { fh: dst, path: "/dst", offset: 0 }, length);
}

/** Byte equality without vitest's element-by-element diff (slow on MiB-sized arrays). */
function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  expect(Buffer.compare(actual, expected)).toBe(0);
}

function blobs(): number {
  return mirror.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs")[0]?.n ?? 0;
}

describe("LocalFs.copyRange", () => {
  it("copies a source whose writes are still buffered in memory, storing each chunk once later", () => {
    const src = fs.create("/src", 0o644).fh;
    fs.write(src, "/src", filled(2 * CHUNK_SIZE + 10, 3), 0);
    const dst = fs.create("/dst", 0o644).fh;
    const operations = mirror.sql.counters.operations;
    const copied = copyFromStart(src, dst, 2 ** 40);
    expect(copied).toBe(2 * CHUNK_SIZE + 10);
    // No vfs operation ran: the copy is pages in memory.
    expect(mirror.sql.counters.operations).toBe(operations);
    expect(blobs()).toBe(0);
    expect(fs.stat("/dst")).toMatchObject({ size: 2 * CHUNK_SIZE + 10 });
    expectBytes(read("/dst"), filled(2 * CHUNK_SIZE + 10, 3));
    fs.release(src);
    fs.release(dst);
    fs.flushAll();
    // Both files hold the same two chunk contents: one blob each, shared.
    expect(blobs()).toBe(2);
    expect(fs.stat("/dst")).toMatchObject({ size: 2 * CHUNK_SIZE + 10, allocated: 2 * CHUNK_SIZE + 10 });
    expectBytes(read("/dst"), filled(2 * CHUNK_SIZE + 10, 3));
    expectBytes(read("/src"), filled(2 * CHUNK_SIZE + 10, 3));
  });

  it("keeps the two files apart after an in-memory copy: either side's writes and truncates", () => {
    const src = fs.create("/src", 0o644).fh;
    fs.write(src, "/src", filled(2 * CHUNK_SIZE, 4), 0, true);
    const dst = fs.create("/dst", 0o644).fh;
    expect(copyFromStart(src, dst, 2 * CHUNK_SIZE)).toBe(2 * CHUNK_SIZE);
    fs.write(src, "/src", filled(3, 5), 10);
    fs.write(dst, "/dst", filled(3, 6), CHUNK_SIZE + 10);
    fs.truncate("/dst", CHUNK_SIZE + 12, dst);
    fs.truncate("/src", 20, src);
    const expectedSrc = filled(20, 4);
    expectedSrc.fill(5, 10, 13);
    const expectedDst = filled(CHUNK_SIZE + 12, 4);
    expectedDst.fill(6, CHUNK_SIZE + 10, CHUNK_SIZE + 12);
    expectBytes(read("/src"), expectedSrc);
    expectBytes(read("/dst"), expectedDst);
    fs.release(src);
    fs.release(dst);
    fs.flushAll();
    expectBytes(mirror.vfs.readFile("/src"), expectedSrc);
    expectBytes(mirror.vfs.readFile("/dst"), expectedDst);
  });

  it("copies a buffered file whose first pages were stored already (cached chunks) in memory too", () => {
    const src = fs.create("/src", 0o644).fh;
    fs.write(src, "/src", filled(CHUNK_SIZE, 7), 0);
    fs.fsync(src, "/src");
    fs.write(src, "/src", filled(CHUNK_SIZE, 8), CHUNK_SIZE);
    const dst = fs.create("/dst", 0o644).fh;
    const operations = mirror.sql.counters.operations;
    expect(copyFromStart(src, dst, 2 * CHUNK_SIZE)).toBe(2 * CHUNK_SIZE);
    expect(mirror.sql.counters.operations).toBe(operations);
    fs.release(src);
    fs.release(dst);
    fs.flushAll();
    const expected = new Uint8Array(2 * CHUNK_SIZE).fill(7, 0, CHUNK_SIZE).fill(8, CHUNK_SIZE);
    expectBytes(mirror.vfs.readFile("/dst"), expected);
  });

  it("copies through the mirror when a partial last chunk would cut the target's own bytes", () => {
    mirror.vfs.writeFile("/dst", filled(CHUNK_SIZE, 2));
    const src = fs.create("/src", 0o644).fh;
    fs.write(src, "/src", filled(10, 1), 0);
    const dst = fs.open("/dst", 2);
    expect(copyFromStart(src, dst, 10)).toBe(10);
    const expected = filled(CHUNK_SIZE, 2).fill(1, 0, 10);
    expectBytes(read("/dst"), expected);
    fs.release(src);
    fs.release(dst);
    fs.flushAll();
    expectBytes(mirror.vfs.readFile("/dst"), expected);
  });

  it("keeps the target's buffered bytes outside the range and drops its cached chunks", () => {
    mirror.vfs.writeFile("/src", filled(CHUNK_SIZE, 1));
    mirror.vfs.writeFile("/dst", filled(3 * CHUNK_SIZE, 2));
    expect(read("/dst")[CHUNK_SIZE]).toBe(2);
    const dst = fs.open("/dst", 2);
    fs.write(dst, "/dst", filled(5, 9), 2 * CHUNK_SIZE + 1);
    const src = fs.open("/src", 0);
    expect(
      fs.copyRange(
        { fh: src, path: "/src", offset: 0 },
        { fh: dst, path: "/dst", offset: CHUNK_SIZE },
        CHUNK_SIZE,
      ),
    ).toBe(CHUNK_SIZE);
    const data = read("/dst");
    expect(data.subarray(0, CHUNK_SIZE)).toEqual(filled(CHUNK_SIZE, 2));
    expect(data.subarray(CHUNK_SIZE, 2 * CHUNK_SIZE)).toEqual(filled(CHUNK_SIZE, 1));
    expect([...data.subarray(2 * CHUNK_SIZE, 2 * CHUNK_SIZE + 7)]).toEqual([2, 9, 9, 9, 9, 9, 2]);
    fs.release(src);
    fs.release(dst);
  });

  it("answers 0 at the source's end and refuses overlapping ranges of one file", () => {
    mirror.vfs.writeFile("/f", filled(100, 1));
    const fh = fs.open("/f", 2);
    expect(fs.copyRange({ fh, path: "/f", offset: 100 }, { fh, path: "/f", offset: 200 }, 10)).toBe(0);
    expect(() => fs.copyRange({ fh, path: "/f", offset: 0 }, { fh, path: "/f", offset: 50 }, 100)).toThrow(
      expect.objectContaining({ code: "EINVAL" }),
    );
    fs.release(fh);
  });
});
