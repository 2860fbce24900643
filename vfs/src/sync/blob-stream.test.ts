import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CHUNK_SIZE } from "../limits.ts";
import {
  BLOB_GROUP,
  BLOB_HEADER_BYTES,
  blobHeader,
  blobStreamBytes,
  blobStreamParts,
  readBlobGroups,
} from "./blob-stream.ts";
import type { BlobData } from "./wire.ts";

function blob(data: Uint8Array): BlobData {
  return { hash: createHash("sha256").update(data).digest("hex"), data };
}

/** The body carrying `blobs`, as one byte array (its pieces as the sender writes them, joined). */
function body(blobs: readonly BlobData[]): Uint8Array {
  const parts = blobStreamParts(blobs);
  const out = new Uint8Array(blobStreamBytes(blobs));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  expect(at).toBe(out.length);
  return out;
}

/** `bytes` as a byte stream handing them over in pieces cut at `cuts` (as a socket does). */
function byteStream(bytes: Uint8Array, cuts: readonly number[] = []): ReadableStream<Uint8Array> {
  const ends = [...new Set(cuts.map((c) => c % (bytes.length + 1)))]
    .filter((end) => end > 0 && end < bytes.length)
    .sort((a, b) => a - b);
  if (bytes.length > 0) ends.push(bytes.length);
  let start = 0;
  let next = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const end = ends[next++];
      if (end === undefined) {
        controller.close();
        // A BYOB read waiting at the end is answered with nothing (the streams spec's way).
        controller.byobRequest?.respond(0);
        return;
      }
      controller.enqueue(bytes.slice(start, end));
      start = end;
    },
  });
}

/** Every blob read back, copied out of its group before the next group is read. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ blobs: BlobData[]; groups: number[] }> {
  const blobs: BlobData[] = [];
  const groups: number[] = [];
  for await (const group of readBlobGroups(stream.getReader({ mode: "byob" }))) {
    groups.push(group.reduce((bytes, b) => bytes + BLOB_HEADER_BYTES + b.data.length, 0));
    for (const b of group) blobs.push({ hash: b.hash, data: b.data.slice() });
  }
  return { blobs, groups };
}

describe("blob streams", () => {
  test("blobs come back in order, in groups, whatever pieces the body arrives in", async () => {
    const size = fc.oneof(fc.nat({ max: 3000 }), fc.integer({ min: 60_000, max: 300_000 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(size, fc.nat(255)), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (specs, cuts) => {
          const blobs = specs.map(([n, fill]) => blob(new Uint8Array(n).fill(fill)));
          const { blobs: back, groups } = await readAll(byteStream(body(blobs), cuts));
          expect(back).toEqual(blobs);
          // A group is what one buffer holds: never more than two whole chunks' worth.
          expect(
            groups.every((bytes) => bytes > 0 && bytes <= BLOB_GROUP * (CHUNK_SIZE + BLOB_HEADER_BYTES)),
          ).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  test("small blobs are packed into few pieces; large ones go as they are", () => {
    const small = Array.from({ length: 1000 }, (_, i) => blob(new Uint8Array(100).fill(i % 256)));
    const large = blob(new Uint8Array(CHUNK_SIZE).fill(1));
    const parts = blobStreamParts([...small, large, small[0] as BlobData]);
    // 1000 × 136 bytes in 256 KiB pieces, then the chunk's header and its bytes, then one more piece.
    expect(parts.length).toBe(4);
    expect(parts[2]).toBe(large.data);
  });

  test("a body of many small blobs is read in few groups", async () => {
    const small = Array.from({ length: 3000 }, (_, i) => blob(new Uint8Array(500).fill(i % 256)));
    const { blobs: back, groups } = await readAll(byteStream(body(small), [1000, 70_000, 900_000]));
    expect(back).toEqual(small);
    expect(groups.length).toBeLessThanOrEqual(6);
  });

  test("whole chunks fit, and a group's buffer serves the next body", async () => {
    const blobs = [0, 1, 2].map((i) => blob(new Uint8Array(CHUNK_SIZE).fill(i + 1)));
    for (let round = 0; round < 3; round++) {
      const { blobs: back } = await readAll(byteStream(body(blobs), [5, 40, CHUNK_SIZE + 3]));
      expect(back.map((b) => b.hash)).toEqual(blobs.map((b) => b.hash));
      expect(back.every((b, i) => b.data.every((byte) => byte === i + 1))).toBe(true);
    }
  });

  test("an empty body holds no blobs", async () => {
    expect((await readAll(byteStream(new Uint8Array(0)))).blobs).toEqual([]);
  });

  test("a body that ends inside a header or a blob is EINVAL", async () => {
    const bytes = body([blob(new Uint8Array(100).fill(7))]);
    for (const cut of [1, BLOB_HEADER_BYTES - 1, BLOB_HEADER_BYTES, bytes.length - 1]) {
      await expect(readAll(byteStream(bytes.subarray(0, cut)))).rejects.toMatchObject({ code: "EINVAL" });
    }
  });

  test("a blob longer than a chunk is EINVAL before its bytes are read", async () => {
    const header = blobHeader(blob(new Uint8Array(1)));
    new DataView(header.buffer).setUint32(0, CHUNK_SIZE + 1);
    await expect(readAll(byteStream(header))).rejects.toMatchObject({
      code: "EINVAL",
      message: expect.stringContaining("larger than a chunk"),
    });
  });
});
