/**
 * File contents: fixed-size content-addressed chunks (sha-256, stored once in
 * `blobs`). Reads touch only the chunks of the requested range; writes replace
 * only the chunks they overlap; holes (sparse ranges) read as zeros.
 */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { CHUNK_SIZE, FILE_SIZE_MAX } from "./limits.ts";
import { addChild, mkdirp } from "./namespace.ts";
import { joinPath, splitPath } from "./paths.ts";
import { ChunkUnavailableError } from "./placeholders.ts";
import { type Location, locate, recordInode, resolveExisting } from "./resolve.ts";
import type { ChunkRow, NodeRow } from "./store.ts";
import { contentChangeTime } from "./time.ts";
import type { ContentOptions, ReadOptions, Timespec, WriteOptions } from "./types.ts";

const encoder = new TextEncoder();

/** Bytes of a string (UTF-8) or the bytes themselves. */
export function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? encoder.encode(data) : data;
}

/** Hashes and stores one chunk's bytes; returns its hash. */
export function storeChunk(ctx: Context, data: Uint8Array): string {
  const hash = ctx.sha256(data);
  ctx.store.putBlob(hash, data, ctx.nowMs());
  return hash;
}

/**
 * The stored bytes of a chunk row. A placeholder (its bytes are still at the peer,
 * placeholders.ts) is EIO: a chunk that is not here is never read as zeros.
 */
function chunkBytes(ctx: Context, chunk: ChunkRow, path: string): Uint8Array {
  const data = ctx.store.blob(chunk.hash);
  if (data) return data;
  if (ctx.store.blobSize(chunk.hash) !== undefined)
    throw new ChunkUnavailableError(path, `chunk ${chunk.idx} is not fetched yet`);
  throw new FsError("EINVAL", "read", path, `missing blob ${chunk.hash}`);
}

/** Reads `length` bytes at `offset` of a file inode, zero-filling holes. */
export function readRange(
  ctx: Context,
  node: NodeRow,
  offset: number,
  length: number,
  path: string,
): Uint8Array {
  const start = Math.min(offset, node.size);
  const end = Math.min(node.size, start + length);
  const out = new Uint8Array(end - start);
  if (end <= start) return out;
  const first = Math.floor(start / CHUNK_SIZE);
  const last = Math.floor((end - 1) / CHUNK_SIZE);
  for (const chunk of ctx.store.chunks(node.ino, first, last)) {
    const data = chunkBytes(ctx, chunk, path);
    const chunkStart = chunk.idx * CHUNK_SIZE;
    const from = Math.max(start, chunkStart);
    const to = Math.min(end, chunkStart + data.length);
    if (to > from) out.set(data.subarray(from - chunkStart, to - chunkStart), from - start);
  }
  return out;
}

/** Throws EINVAL unless `value` is a non-negative safe integer (an offset or a length). */
export function checkOffset(value: number, syscall: string, path: string, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new FsError("EINVAL", syscall, path, `invalid ${what}`);
}

/**
 * Throws EFBIG for a whole position past FILE_SIZE_MAX (Linux: an offset or length beyond
 * the largest file size), else EINVAL unless it is a valid offset. The size check comes first:
 * such a position is a well-formed request the filesystem cannot hold, not a malformed one.
 */
export function checkFilePosition(value: number, syscall: string, path: string, what: string): void {
  if (Number.isInteger(value) && value > FILE_SIZE_MAX)
    throw new FsError("EFBIG", syscall, path, `${what} past the largest file size`);
  checkOffset(value, syscall, path, what);
}

/** readFile / pread: the whole file or a byte range. */
export function readFile(ctx: Context, path: string, options: ReadOptions = {}): Uint8Array {
  const loc = resolveExisting(ctx, path, "read", true);
  const node = requireFile(loc.node, "read", path);
  const offset = options.offset ?? 0;
  checkOffset(offset, "read", path, "offset");
  const length = options.length ?? node.size;
  checkOffset(length, "read", path, "length");
  return readRange(ctx, node, offset, length, path);
}

export function requireFile(node: NodeRow, syscall: string, path: string): NodeRow {
  if (node.type === "dir") throw new FsError("EISDIR", syscall, path);
  if (node.type !== "file") throw new FsError("EINVAL", syscall, path, `not a regular file (${node.type})`);
  return node;
}

/**
 * Finds or creates the file `path` names for writing (following a final symlink,
 * as open(O_CREAT) does). `exclusive` fails on any existing name.
 */
export function openForWrite(
  ctx: Context,
  path: string,
  options: WriteOptions,
  syscall: string,
): Location & { node: NodeRow } {
  if (options.parents) {
    // The parent is named lexically: locate() would fail on the very parents we are to create.
    const names = splitPath(path, syscall);
    if (names.length > 1) mkdirp(ctx, joinPath(names.slice(0, -1)));
  }
  if (options.exclusive) {
    const existing = locate(ctx, path, syscall, false);
    if (existing.node) throw new FsError("EEXIST", syscall, path);
  }
  const loc = locate(ctx, path, syscall, true);
  if (loc.node) return { ...loc, node: requireFile(loc.node, syscall, path) };
  const mode = options.mode ?? 0o644;
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777)
    throw new FsError("EINVAL", syscall, path, "invalid mode");
  const parent = ctx.store.node(loc.parent);
  if (parent?.type !== "dir") throw new FsError("ENOTDIR", syscall, path);
  const row = ctx.newNode("file", mode);
  const ino = ctx.store.insertNode(row);
  addChild(ctx, loc, ino, false);
  return { ...loc, node: { ...row, ino } };
}

/**
 * Commits new content of a file inode: size, allocated bytes, mtime/ctime = `time` (default
 * now; ctime stays later if the node changed after `time`: contentChangeTime); charges the
 * quota for the growth and records the change under every name of the inode.
 */
export function commitContent(
  ctx: Context,
  loc: Location & { node: NodeRow },
  size: number,
  allocated: number,
  syscall: string,
  time?: Timespec,
): NodeRow {
  const node = loc.node;
  const now = time ? ctx.given(time) : ctx.clock();
  const changed = time ? contentChangeTime(node, time) : now;
  const fields = {
    size,
    allocated,
    mtime_s: now.sec,
    mtime_ns: now.nsec,
    ctime_s: changed.sec,
    ctime_ns: changed.nsec,
  };
  ctx.store.updateNode(node.ino, fields);
  ctx.charge(allocated - node.allocated, syscall, loc.path);
  const updated = { ...node, ...fields };
  recordInode(ctx, updated, loc.path);
  return updated;
}

/** Replaces a file's chunks with `hashes` (each CHUNK_SIZE but the last), sets size and times. */
export function replaceContent(
  ctx: Context,
  loc: Location & { node: NodeRow },
  chunks: { hash: string; size: number }[],
  size: number,
  syscall: string,
  time?: Timespec,
): NodeRow {
  const node = loc.node;
  ctx.store.deleteChunksFrom(node.ino, 0);
  let allocated = 0;
  chunks.forEach((chunk, idx) => {
    ctx.store.setChunk(node.ino, idx, chunk.hash, chunk.size);
    allocated += chunk.size;
  });
  return commitContent(ctx, loc, size, allocated, syscall, time);
}

/** writeFile: the whole content in one transaction. */
export function writeFile(
  ctx: Context,
  path: string,
  data: Uint8Array | string,
  options: WriteOptions = {},
): NodeRow {
  const bytes = toBytes(data);
  return ctx.mutate(() => {
    const loc = openForWrite(ctx, path, options, "write");
    const chunks: { hash: string; size: number }[] = [];
    for (let offset = 0; offset < bytes.length; offset += CHUNK_SIZE) {
      const slice = bytes.subarray(offset, Math.min(bytes.length, offset + CHUNK_SIZE));
      chunks.push({ hash: storeChunk(ctx, slice), size: slice.length });
    }
    return replaceContent(ctx, loc, chunks, bytes.length, "write", options.mtime);
  });
}

/**
 * setChunks: the file at `path` holds exactly `chunks` (one sha-256 per CHUNK_SIZE slot, ""
 * for a hole) and `size` bytes, in one transaction, reusing blobs already stored under those
 * hashes: nothing is read, copied or hashed again (sync's receiver, after the sender's blobs
 * arrived). EINVAL when a blob is missing, larger than a chunk, or a chunk lies past `size`.
 */
export function setChunks(
  ctx: Context,
  path: string,
  chunks: readonly string[],
  size: number,
  options: WriteOptions = {},
): NodeRow {
  checkFilePosition(size, "write", path, "size");
  if (chunks.length > Math.ceil(size / CHUNK_SIZE))
    throw new FsError("EINVAL", "write", path, "chunks past the end of the file");
  return ctx.mutate(() => {
    const sizes = new Map<string, number>();
    const rows: { idx: number; hash: string; size: number }[] = [];
    chunks.forEach((hash, idx) => {
      if (hash === "") return;
      let bytes = sizes.get(hash);
      if (bytes === undefined) {
        bytes = ctx.store.blobSize(hash);
        if (bytes === undefined) throw new FsError("EINVAL", "write", path, `missing blob ${hash}`);
        if (bytes > CHUNK_SIZE) throw new FsError("EINVAL", "write", path, `blob ${hash} exceeds a chunk`);
        sizes.set(hash, bytes);
      }
      rows.push({ idx, hash, size: bytes });
    });
    const loc = openForWrite(ctx, path, options, "write");
    ctx.store.deleteChunksFrom(loc.node.ino, 0);
    let allocated = 0;
    for (const row of rows) {
      ctx.store.setChunk(loc.node.ino, row.idx, row.hash, row.size);
      allocated += row.size;
    }
    return commitContent(ctx, loc, size, allocated, "write");
  });
}

/** Writes `data` at `offset` into an inode, rewriting only the chunks it overlaps. */
export function writeAt(
  ctx: Context,
  loc: Location & { node: NodeRow },
  offset: number,
  data: Uint8Array,
  syscall: string,
  time?: Timespec,
): NodeRow {
  const node = loc.node;
  const end = offset + data.length;
  if (end > FILE_SIZE_MAX) throw new FsError("EFBIG", syscall, loc.path);
  let allocated = node.allocated;
  if (data.length > 0) {
    const first = Math.floor(offset / CHUNK_SIZE);
    const last = Math.floor((end - 1) / CHUNK_SIZE);
    const existing = new Map(ctx.store.chunks(node.ino, first, last).map((c) => [c.idx, c]));
    for (let idx = first; idx <= last; idx++) {
      const chunkStart = idx * CHUNK_SIZE;
      const old = existing.get(idx);
      const from = Math.max(offset, chunkStart) - chunkStart;
      const to = Math.min(end, chunkStart + CHUNK_SIZE) - chunkStart;
      let bytes: Uint8Array;
      if (from === 0 && to >= (old?.size ?? 0)) {
        // The write replaces the whole chunk: its old bytes are not read.
        bytes = data.subarray(chunkStart + from - offset, chunkStart + to - offset);
      } else {
        const oldBytes = old ? chunkBytes(ctx, old, loc.path) : new Uint8Array(0);
        const length = Math.max(oldBytes.length, to);
        bytes = new Uint8Array(length);
        bytes.set(oldBytes);
        bytes.set(data.subarray(chunkStart + from - offset, chunkStart + to - offset), from);
      }
      ctx.store.setChunk(node.ino, idx, storeChunk(ctx, bytes), bytes.length);
      allocated += bytes.length - (old?.size ?? 0);
    }
  }
  // An empty write never extends the file (POSIX write of 0 bytes).
  const size = data.length > 0 ? Math.max(node.size, end) : node.size;
  return commitContent(ctx, loc, size, allocated, syscall, time);
}

/** pwrite: writes at an offset of an existing file, extending it (the gap reads as zeros). */
export function pwrite(
  ctx: Context,
  path: string,
  offset: number,
  data: Uint8Array | string,
  options: ContentOptions = {},
): NodeRow {
  checkFilePosition(offset, "write", path, "offset");
  const bytes = toBytes(data);
  return ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "write", true);
    requireFile(loc.node, "write", path);
    return writeAt(ctx, loc, offset, bytes, "write", options.mtime);
  });
}

/** appendFile: writes at the end, creating the file if needed. */
export function appendFile(
  ctx: Context,
  path: string,
  data: Uint8Array | string,
  options: WriteOptions = {},
): NodeRow {
  const bytes = toBytes(data);
  return ctx.mutate(() => {
    const loc = openForWrite(ctx, path, options, "write");
    return writeAt(ctx, loc, loc.node.size, bytes, "write");
  });
}

/** truncate: shrinks (dropping whole chunks past the end) or grows (a hole). */
export function truncate(ctx: Context, path: string, length: number, options: ContentOptions = {}): NodeRow {
  checkFilePosition(length, "truncate", path, "length");
  return ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "truncate", true);
    const node = requireFile(loc.node, "truncate", path);
    let allocated = node.allocated;
    if (length < node.size) {
      const keep = Math.ceil(length / CHUNK_SIZE);
      for (const chunk of ctx.store.chunks(node.ino, keep)) allocated -= chunk.size;
      ctx.store.deleteChunksFrom(node.ino, keep);
      const lastIdx = keep - 1;
      const tail = length - lastIdx * CHUNK_SIZE;
      const lastChunk = lastIdx >= 0 ? ctx.store.chunks(node.ino, lastIdx, lastIdx)[0] : undefined;
      if (lastChunk && lastChunk.size > tail) {
        const bytes = chunkBytes(ctx, lastChunk, path).subarray(0, tail);
        ctx.store.setChunk(node.ino, lastIdx, storeChunk(ctx, bytes), bytes.length);
        allocated -= lastChunk.size - bytes.length;
      }
    }
    return commitContent(ctx, { ...loc, node }, length, allocated, "truncate", options.mtime);
  });
}
