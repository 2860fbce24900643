/**
 * Whole pages hashed ahead on the thread pool: the stores then use those hashes (the vfs does
 * not hash them again), and a page that changed while it was being hashed is stored with the
 * hash of what it holds, never the stale one.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHUNK_SIZE } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KnownHashes } from "../mirror/known-hashes.ts";
import { type Mirror, openMirror } from "../mirror/open-mirror.ts";
import { WriteBack } from "./write-back.ts";

let dir: string;
let mirror: Mirror;
let wb: WriteBack;
/** Stores that used a hash computed ahead. */
let used: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "computerd-hashing-"));
  mirror = openMirror(dir);
  used = 0;
  const lookup = mirror.hashes.lookup.bind(mirror.hashes);
  mirror.hashes.lookup = (data) => {
    const hash = lookup(data);
    if (hash) used++;
    return hash;
  };
  // Background stores only when the test asks (flush), so the counts are exact.
  wb = new WriteBack(mirror.vfs, () => {}, {
    quietMs: 60_000,
    idleFlushMs: 60_000,
    knownHashes: mirror.hashes,
  });
});

afterEach(() => {
  wb.stop();
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function chunkHashes(ino: number): string[] {
  return mirror.sql
    .exec<{ hash: string }>("SELECT hash FROM chunks WHERE ino = ? ORDER BY idx", ino)
    .map((r) => r.hash);
}

describe("WriteBack: hashing ahead", () => {
  it("stores whole pages with the hashes computed on the thread pool", async () => {
    const ino = mirror.vfs.writeFile("/f", "").ino;
    const fh = wb.open(ino, 0);
    const data = new Uint8Array(2 * CHUNK_SIZE + 5);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) & 0xff;
    wb.write(ino, "/f", data, 0, () => 0);
    await wb.hashAhead();
    wb.flush(ino);
    // The two whole pages came hashed; the 5-byte tail was hashed by the vfs.
    expect(used).toBe(2);
    expect(chunkHashes(ino)).toEqual([
      sha256(data.subarray(0, CHUNK_SIZE)),
      sha256(data.subarray(CHUNK_SIZE, 2 * CHUNK_SIZE)),
      sha256(data.subarray(2 * CHUNK_SIZE)),
    ]);
    expect(mirror.vfs.readFile("/f")).toEqual(data);
    wb.release(fh);
  });

  it("drops a hash whose page changed while it was computed", async () => {
    const ino = mirror.vfs.writeFile("/f", "").ino;
    const fh = wb.open(ino, 0);
    wb.write(ino, "/f", new Uint8Array(CHUNK_SIZE).fill(1), 0, () => 0, true);
    const hashing = wb.hashAhead();
    wb.write(ino, "/f", new Uint8Array(3).fill(2), 100, () => CHUNK_SIZE);
    await hashing;
    wb.flush(ino);
    const expected = new Uint8Array(CHUNK_SIZE).fill(1).fill(2, 100, 103);
    expect(used).toBe(0);
    expect(chunkHashes(ino)).toEqual([sha256(expected)]);
    expect(Buffer.compare(mirror.vfs.readFile("/f"), expected)).toBe(0);
    wb.release(fh);
  });
});

describe("KnownHashes", () => {
  it("names exactly the bytes of the one store it runs", () => {
    const known = new KnownHashes();
    const buf = new Uint8Array(16);
    const view = buf.subarray(4, 12);
    expect(
      known.during(view, "h", () => [known.lookup(buf.subarray(4, 12)), known.lookup(buf.subarray(4, 11))]),
    ).toEqual(["h", undefined]);
    expect(known.lookup(view)).toBeUndefined();
    expect(known.during(view, "h", () => known.lookup(new Uint8Array(8)))).toBeUndefined();
  });
});
