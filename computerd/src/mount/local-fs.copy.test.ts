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

function blobs(): number {
  return mirror.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs")[0]?.n ?? 0;
}

describe("LocalFs.copyRange", () => {
  it("copies a source whose writes are still buffered, sharing its chunks once stored", () => {
    const src = fs.create("/src", 0o644).fh;
    fs.write(src, "/src", filled(2 * CHUNK_SIZE + 10, 3), 0);
    const dst = fs.create("/dst", 0o644).fh;
    const copied = fs.copyRange(
      { fh: src, path: "/src", offset: 0 },
      { fh: dst, path: "/dst", offset: 0 },
      2 ** 40,
    );
    expect(copied).toBe(2 * CHUNK_SIZE + 10);
    const stored = blobs();
    fs.release(src);
    fs.release(dst);
    fs.flushAll();
    expect(blobs()).toBe(stored);
    expect(fs.stat("/dst")).toMatchObject({ size: 2 * CHUNK_SIZE + 10, allocated: 2 * CHUNK_SIZE + 10 });
    expect(read("/dst")).toEqual(filled(2 * CHUNK_SIZE + 10, 3));
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
