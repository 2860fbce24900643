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
import { fromHex, toHex } from "./state.ts";
import type { BlobData } from "./wire.ts";

/** Bytes of a blob's header in the stream. */
export const BLOB_HEADER_BYTES = 36;

/**
 * Blobs stored per group, with a commit between groups: more in one step outgrow the DO's
 * SQLite page cache and spill (streams.ts STORE_GROUP_CHUNKS).
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

/** workerd's BYOB reader extension: resolves once at least `min` bytes are in `view` (or at the end). */
interface ReadAtLeast {
  readAtLeast(min: number, view: Uint8Array): Promise<ReadableStreamReadResult<Uint8Array>>;
}

/** Group buffers kept for the next body, so a body does not pay for fresh zeroed memory. */
const spareBuffers: ArrayBuffer[] = [];
const SPARE_BUFFERS = 2;
const GROUP_BUFFER_BYTES = BLOB_GROUP * CHUNK_SIZE;

function truncated(): FsError {
  return new FsError("EINVAL", "sync", undefined, "the blob stream ends inside a blob");
}

/**
 * Reads exactly `length` bytes into `buffer` at `offset` (BYOB: the buffer moves into the read
 * and comes back as a new ArrayBuffer over the same memory). Answers that buffer, or undefined
 * when the stream ended before the first byte and `endOk`.
 */
async function readExactly(
  reader: ReadableStreamBYOBReader,
  buffer: ArrayBuffer,
  offset: number,
  length: number,
  endOk: boolean,
): Promise<ArrayBuffer | undefined> {
  const atLeast = (reader as Partial<ReadAtLeast>).readAtLeast?.bind(reader);
  let filled = 0;
  while (filled < length) {
    const view = new Uint8Array(buffer, offset + filled, length - filled);
    const { done, value } = atLeast ? await atLeast(view.length, view) : await reader.read(view);
    if (value) {
      buffer = value.buffer as ArrayBuffer;
      filled += value.byteLength;
    }
    if (done && filled < length) {
      if (filled === 0 && endOk) return undefined;
      throw truncated();
    }
  }
  return buffer;
}

/**
 * The blobs of a body in groups of BLOB_GROUP, each read straight into a reused buffer: a
 * group's bytes are views valid until the next group is asked for (store them before). Throws
 * EINVAL for a blob larger than a chunk or a body that ends inside a blob; hashes are the
 * receiver's to check.
 */
export async function* readBlobGroups(reader: ReadableStreamBYOBReader): AsyncGenerator<BlobData[]> {
  let buffer = spareBuffers.pop() ?? new ArrayBuffer(GROUP_BUFFER_BYTES);
  let header: ArrayBuffer = new ArrayBuffer(BLOB_HEADER_BYTES);
  try {
    for (;;) {
      const group: { hash: string; offset: number; length: number }[] = [];
      let ended = false;
      while (group.length < BLOB_GROUP) {
        const got = await readExactly(reader, header, 0, BLOB_HEADER_BYTES, true);
        if (!got) {
          ended = true;
          break;
        }
        header = got;
        const length = new DataView(header).getUint32(0);
        if (length > CHUNK_SIZE) {
          throw new FsError("EINVAL", "sync", undefined, `a blob of ${length} bytes is larger than a chunk`);
        }
        const hash = toHex(new Uint8Array(header, 4, 32));
        const offset = group.length * CHUNK_SIZE;
        buffer = (await readExactly(reader, buffer, offset, length, false)) ?? buffer;
        group.push({ hash, offset, length });
      }
      if (group.length > 0) {
        const bytes = buffer;
        yield group.map((blob) => ({
          hash: blob.hash,
          data: new Uint8Array(bytes, blob.offset, blob.length),
        }));
      }
      if (ended) return;
    }
  } finally {
    reader.releaseLock();
    if (buffer.byteLength === GROUP_BUFFER_BYTES && spareBuffers.length < SPARE_BUFFERS)
      spareBuffers.push(buffer);
  }
}
