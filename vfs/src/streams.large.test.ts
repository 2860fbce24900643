/**
 * A 1 GiB file written by writeStream from a generator and read back by readStream, both
 * verified by sha-256 on the fly: neither side ever holds more than a piece or a chunk.
 */
import { createHash } from "node:crypto";
import { expect, vfsTest } from "../test/backend.ts";
import { CHUNK_SIZE } from "./limits.ts";

const GIB = 2 ** 30;
/** Not a divisor of CHUNK_SIZE, so pieces straddle chunk boundaries. */
const PIECE = 256 * 1024 + 13;

/** 1 GiB in PIECE-sized pieces; every piece is stamped with its index so no two chunks dedupe. */
async function* gibibyte(hash: ReturnType<typeof createHash>): AsyncGenerator<Uint8Array> {
  const base = new Uint8Array(PIECE);
  for (let i = 0; i < PIECE; i++) base[i] = (i * 131 + (i >> 9)) & 0xff;
  let sent = 0;
  for (let index = 0; sent < GIB; index++) {
    const piece = base.slice(0, Math.min(PIECE, GIB - sent));
    new DataView(piece.buffer).setUint32(0, index);
    hash.update(piece);
    sent += piece.length;
    yield piece;
  }
}

vfsTest(
  "a 1 GiB file streams in and out with the same sha-256, stored as 1024 distinct chunks",
  async (vfs, { sql }) => {
    const written = createHash("sha256");
    const st = await vfs.writeStream("/huge.bin", gibibyte(written));
    expect(st).toMatchObject({ size: GIB, allocated: GIB });
    expect(vfs.usage().usedBytes).toBe(GIB);
    const blobs = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs")[0]?.n;
    expect(blobs).toBe(GIB / CHUNK_SIZE);

    const read = createHash("sha256");
    let total = 0;
    const reader = vfs.readStream("/huge.bin").getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      expect(value.length).toBeLessThanOrEqual(CHUNK_SIZE);
      read.update(value);
      total += value.length;
    }
    expect(total).toBe(GIB);
    expect(read.digest("hex")).toBe(written.digest("hex"));
  },
  { timeoutMs: 120_000 },
);
