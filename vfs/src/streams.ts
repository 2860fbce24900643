/**
 * Streaming reads and writes. A write stream hashes and stores full chunks as they arrive, a
 * group of STORE_GROUP_CHUNKS at a time (so a 1 GiB body never sits in memory; a byte stream is
 * read straight into the group's buffer) and swaps the file's chunk list in one transaction at
 * the end; a read stream pulls one chunk at a time.
 */

import { checkOffset, openForWrite, readRange, replaceContent, storeChunk } from "./content.ts";
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { CHUNK_SIZE } from "./limits.ts";
import { locate, resolveExisting } from "./resolve.ts";
import type { NodeRow } from "./store.ts";
import type { ReadOptions, WriteOptions } from "./types.ts";

/** Anything a body can come from. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** workerd's BYOB reader extension: resolves once at least `min` bytes are in `view` (or at the end). */
interface ReadAtLeast {
  readAtLeast(min: number, view: Uint8Array): Promise<ReadableStreamReadResult<Uint8Array>>;
}

/**
 * One BYOB read into `view`: with workerd's `readAtLeast`, at least `min` bytes (or the end) in
 * one call; elsewhere a plain read (whatever one piece holds).
 */
export function readAtLeast(
  reader: ReadableStreamBYOBReader,
  min: number,
  view: Uint8Array,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  const atLeast = (reader as Partial<ReadAtLeast>).readAtLeast;
  return atLeast ? atLeast.call(reader, min, view) : reader.read(view);
}

/** A BYOB reader of `source` when it is a byte stream, else undefined (the stream stays unlocked). */
function byobReader(source: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return source.getReader({ mode: "byob" });
  } catch {
    return undefined;
  }
}

/**
 * Chunks read from a body before they are hashed and stored, all in one synchronous step: a
 * Durable Object commits its writes whenever its code waits for I/O, so a PUT that stored each
 * chunk between two body reads paid a commit (a WAL fsync) per MiB. Two, not more: a larger
 * transaction outgrows SQLite's page cache in the DO (~2 MiB) and spills, reading and writing
 * pages again (strace of one 100 MiB PUT: 2 chunks 174 → 126 fsyncs with the same 77,500 page
 * writes and 25,800 reads; 8 chunks 51 fsyncs but +10% writes and +33% reads; docs/BENCH.md).
 */
export const STORE_GROUP_CHUNKS = 2;
const GROUP_BYTES = STORE_GROUP_CHUNKS * CHUNK_SIZE;

/** `bytes` as whole chunks (views, no copies; the last one may be shorter). */
function chunkViews(bytes: Uint8Array): Uint8Array[] {
  const views: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += CHUNK_SIZE) {
    views.push(bytes.subarray(offset, Math.min(bytes.length, offset + CHUNK_SIZE)));
  }
  return views;
}

/**
 * The bytes of a byte stream in groups of whole chunks, read straight into the group's buffer:
 * workerd hands a request body over in 4 KiB pieces, and one JS read per piece cost more than
 * storing the chunks (25,600 reads per 100 MiB); `readAtLeast` fills a group in one call.
 */
async function* byobGroups(reader: ReadableStreamBYOBReader): AsyncGenerator<Uint8Array[]> {
  try {
    let buffer = new ArrayBuffer(GROUP_BYTES);
    let filled = 0;
    for (;;) {
      const view = new Uint8Array(buffer, filled);
      const { done, value } = await readAtLeast(reader, view.length, view);
      if (value) {
        buffer = value.buffer as ArrayBuffer;
        filled += value.byteLength;
      }
      if (filled === GROUP_BYTES || done) {
        if (filled > 0) yield chunkViews(new Uint8Array(buffer, 0, filled));
        if (done) return;
        buffer = new ArrayBuffer(GROUP_BYTES);
        filled = 0;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** Any source regrouped into groups of whole chunks (the last chunk may be shorter). */
async function* pieceGroups(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array[]> {
  let group: Uint8Array[] = [];
  let pending = new Uint8Array(CHUNK_SIZE);
  let filled = 0;
  for await (const piece of source) {
    let offset = 0;
    while (offset < piece.length) {
      const take = Math.min(piece.length - offset, CHUNK_SIZE - filled);
      pending.set(piece.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === CHUNK_SIZE) {
        group.push(pending);
        pending = new Uint8Array(CHUNK_SIZE);
        filled = 0;
        if (group.length === STORE_GROUP_CHUNKS) {
          yield group;
          group = [];
        }
      }
    }
  }
  if (filled > 0) group.push(pending.subarray(0, filled));
  if (group.length > 0) yield group;
}

/**
 * The chunks of a body as they come, whichever kind it is (a web stream is read with its reader
 * and released; it is async-iterable too, but its reader is what workerd's streams implement).
 */
export async function* byteChunks(source: ByteSource): AsyncGenerator<Uint8Array> {
  if (!("getReader" in source)) {
    yield* source;
    return;
  }
  const reader = source.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** `source` as groups of whole chunks. A ReadableStream is async-iterable too, but read as a stream (BYOB). */
function chunkGroupsOf(source: ByteSource): AsyncIterable<Uint8Array[]> {
  if (!("getReader" in source)) return pieceGroups(source);
  const reader = byobReader(source);
  return reader ? byobGroups(reader) : pieceGroups(byteChunks(source));
}

/** Checks what can be checked before consuming a body, so a doomed write fails fast. */
function precheck(ctx: Context, path: string, options: WriteOptions): void {
  let loc: ReturnType<typeof locate>;
  try {
    loc = locate(ctx, path, "write", !options.exclusive);
  } catch (err) {
    // Missing parents are created by the final openForWrite.
    if (options.parents && err instanceof FsError && err.code === "ENOENT") return;
    throw err;
  }
  if (loc.node && options.exclusive) throw new FsError("EEXIST", "write", path);
  if (loc.node?.type === "dir") throw new FsError("EISDIR", "write", path);
  if (!loc.node && !options.parents) {
    const parent = ctx.store.node(loc.parent);
    if (parent?.type !== "dir") throw new FsError("ENOTDIR", "write", path);
  }
}

/** Writes a whole file from a stream; the new content appears atomically when the stream ends. */
export async function writeStream(
  ctx: Context,
  path: string,
  source: ByteSource,
  options: WriteOptions = {},
): Promise<NodeRow> {
  precheck(ctx, path, options);
  const quota = ctx.store.metaValue("quota");
  const budget = quota === undefined ? Number.POSITIVE_INFINITY : quota - (ctx.store.metaValue("used") ?? 0);
  const chunks: { hash: string; size: number }[] = [];
  let size = 0;
  for await (const group of chunkGroupsOf(source)) {
    for (const chunk of group) size += chunk.length;
    // An existing file's bytes are freed on replace, so only fail early when even that cannot
    // help (its size is looked up only then: a path walk per chunk was 3% of a PUT).
    if (quota !== undefined && size > budget && size > budget + existingAllocated(ctx, path)) {
      throw new FsError("ENOSPC", "write", path);
    }
    // The group's chunks in one step, with no wait between them (one commit of the DO's).
    const stored = ctx.store.sql.transaction(() =>
      group.map((chunk) => ({ hash: storeChunk(ctx, chunk), size: chunk.length })),
    );
    chunks.push(...stored);
  }
  return ctx.mutate(() => {
    const loc = openForWrite(ctx, path, options, "write");
    return replaceContent(ctx, loc, chunks, size, "write");
  });
}

/** Bytes the file at `path` holds now (0 if it does not exist yet, e.g. its parents are still to be made). */
function existingAllocated(ctx: Context, path: string): number {
  try {
    return locate(ctx, path, "write", true).node?.allocated ?? 0;
  } catch {
    return 0;
  }
}

/** A stream of a file's bytes (or a range), one chunk per pull. */
export function readStream(
  ctx: Context,
  path: string,
  options: ReadOptions = {},
): ReadableStream<Uint8Array> {
  const loc = resolveExisting(ctx, path, "read", true);
  if (loc.node.type === "dir") throw new FsError("EISDIR", "read", path);
  if (loc.node.type !== "file") throw new FsError("EINVAL", "read", path, "not a regular file");
  const node = loc.node;
  checkOffset(options.offset ?? 0, "read", path, "offset");
  checkOffset(options.length ?? 0, "read", path, "length");
  const start = Math.min(options.offset ?? 0, node.size);
  const end = Math.min(node.size, start + (options.length ?? node.size));
  let position = start;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (position >= end) {
        controller.close();
        return;
      }
      const chunkEnd = Math.min(end, (Math.floor(position / CHUNK_SIZE) + 1) * CHUNK_SIZE);
      // Re-read the inode so a concurrent truncate cannot make us read past its end.
      const current = ctx.store.node(node.ino) ?? node;
      const bytes = readRange(
        ctx,
        { ...current, size: Math.max(current.size, chunkEnd) },
        position,
        chunkEnd - position,
        path,
      );
      position = chunkEnd;
      controller.enqueue(bytes);
    },
  });
}
