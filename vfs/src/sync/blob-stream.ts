/**
 * Blobs as one HTTP body: computerd uploads the chunks of large files to its DO this way
 * instead of as `putBlobs` messages on the link. workerd makes every binary WebSocket message a
 * new zero-filled ArrayBuffer before it copies the bytes in (36% of the DO's CPU while a command
 * uploaded 100 MiB, docs/BENCH.md); a body is read straight into a buffer the DO reuses, and
 * stored a group at a time with a commit between groups, as a file's `PUT` is.
 *
 * Each blob is a 36-byte header, its length (u32, big-endian) and its sha-256 (32 bytes), then
 * its bytes. The receiver checks every blob against its hash before it stores it.
 */
import { FsError } from "../errors.ts";
import { CHUNK_SIZE } from "../limits.ts";
import { readAtLeast } from "../streams.ts";
import { fromHex, toHex } from "./state.ts";
import type { BlobData } from "./wire.ts";

/** Bytes of a blob's header in the stream. */
export const BLOB_HEADER_BYTES = 36;

/**
 * Whole chunks stored per group, with a commit between groups: more in one step outgrow the
 * DO's SQLite page cache and spill (streams.ts STORE_GROUP_CHUNKS). A group of small blobs holds
 * as many bytes.
 */
export const BLOB_GROUP = 2;

/** The header that goes before `blob`'s bytes. */
export function blobHeader(blob: BlobData): Uint8Array {
  const header = new Uint8Array(BLOB_HEADER_BYTES);
  new DataView(header.buffer).setUint32(0, blob.data.length);
  header.set(fromHex(blob.hash), 4);
  return header;
}

/** Bytes of the body that carries `blobs` (its Content-Length). */
export function blobStreamBytes(blobs: readonly BlobData[]): number {
  let bytes = 0;
  for (const blob of blobs) bytes += BLOB_HEADER_BYTES + blob.data.length;
  return bytes;
}

/** A blob smaller than this goes into the body packed with its neighbours (one piece, not two). */
const PACK_BELOW = 64 << 10;
/** Bytes of one packed piece at most. */
const PACK_BYTES = 256 << 10;

/**
 * The body that carries `blobs`, in the pieces to write: a large blob's header, then its bytes
 * as they are (no copy); small blobs packed with their headers into pieces of up to 256 KiB,
 * so a body of thousands of small files is not thousands of writes.
 */
export function blobStreamParts(blobs: readonly BlobData[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let pack: Uint8Array | undefined;
  let packed = 0;
  const flush = () => {
    if (pack && packed > 0) parts.push(pack.subarray(0, packed));
    pack = undefined;
    packed = 0;
  };
  for (const blob of blobs) {
    const header = blobHeader(blob);
    if (blob.data.length >= PACK_BELOW) {
      flush();
      parts.push(header, blob.data);
      continue;
    }
    const size = BLOB_HEADER_BYTES + blob.data.length;
    if (pack && packed + size > pack.length) flush();
    pack ??= new Uint8Array(PACK_BYTES);
    pack.set(header, packed);
    pack.set(blob.data, packed + BLOB_HEADER_BYTES);
    packed += size;
  }
  flush();
  return parts;
}

/**
 * A group's buffer: two whole chunks with their headers, so large blobs are stored two at a
 * time, and up to as many bytes of small ones.
 */
const GROUP_BUFFER_BYTES = BLOB_GROUP * (CHUNK_SIZE + BLOB_HEADER_BYTES);
/** Group buffers kept for the next body, so a body does not pay for fresh zeroed memory. */
const spareBuffers: ArrayBuffer[] = [];
const SPARE_BUFFERS = 2;

function truncated(): FsError {
  return new FsError("EINVAL", "sync", undefined, "the blob stream ends inside a blob");
}

/** The blobs complete in `bytes` from its start, and where the first incomplete one starts. */
function completeBlobs(bytes: Uint8Array): { blobs: BlobData[]; end: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const blobs: BlobData[] = [];
  let at = 0;
  while (bytes.length - at >= BLOB_HEADER_BYTES) {
    const length = view.getUint32(at);
    if (length > CHUNK_SIZE) {
      throw new FsError("EINVAL", "sync", undefined, `a blob of ${length} bytes is larger than a chunk`);
    }
    const start = at + BLOB_HEADER_BYTES;
    if (bytes.length - start < length) break;
    blobs.push({ hash: toHex(bytes.subarray(at + 4, start)), data: bytes.subarray(start, start + length) });
    at = start + length;
  }
  return { blobs, end: at };
}

/** Bytes still to read before the blob starting at `bytes`' start is complete. */
function missingBytes(bytes: Uint8Array): number {
  if (bytes.length < BLOB_HEADER_BYTES) return BLOB_HEADER_BYTES - bytes.length;
  const length = new DataView(bytes.buffer, bytes.byteOffset, BLOB_HEADER_BYTES).getUint32(0);
  return BLOB_HEADER_BYTES + length - bytes.length;
}

/**
 * The blobs of a body in groups of whatever is complete in one buffer's worth (two whole
 * chunks, or many small blobs), read straight into a reused buffer: a group's bytes are views
 * valid until the next group is asked for (store them before). Throws EINVAL for a blob larger
 * than a chunk or a body that ends inside a blob; hashes are the receiver's to check.
 */
export async function* readBlobGroups(reader: ReadableStreamBYOBReader): AsyncGenerator<BlobData[]> {
  let buffer = spareBuffers.pop() ?? new ArrayBuffer(GROUP_BUFFER_BYTES);
  let filled = 0;
  try {
    for (;;) {
      // Read until the next blob is complete, and as much more as the buffer takes (BYOB: the
      // buffer moves into the read and comes back as a new ArrayBuffer over the same memory).
      const min = missingBytes(new Uint8Array(buffer, 0, filled));
      const view = new Uint8Array(buffer, filled);
      const { done, value } = await readAtLeast(reader, min, view);
      if (value) {
        buffer = value.buffer as ArrayBuffer;
        filled += value.byteLength;
      }
      const { blobs, end } = completeBlobs(new Uint8Array(buffer, 0, filled));
      if (blobs.length > 0) yield blobs;
      // The incomplete blob's bytes to the front, for the next read to complete.
      new Uint8Array(buffer).copyWithin(0, end, filled);
      filled -= end;
      if (done) {
        if (filled > 0) throw truncated();
        return;
      }
    }
  } finally {
    reader.releaseLock();
    if (buffer.byteLength === GROUP_BUFFER_BYTES && spareBuffers.length < SPARE_BUFFERS)
      spareBuffers.push(buffer);
  }
}
