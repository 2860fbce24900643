/**
 * copy_file_range(2) inside the vfs: copies a byte range of one file into another (or the
 * same) file in one transaction. Where both offsets sit on chunk boundaries, whole chunks are
 * shared by hash instead of read and rehashed (a reflink: a copy of a large file is a few
 * rows, and the sync carries hashes the other side already holds); what is left over (an
 * unaligned copy, a partial chunk the target extends past) is copied as bytes, at most
 * BYTE_COPY_MAX per call, so the caller loops on a short count like any copy_file_range.
 */

import { checkFilePosition, checkOffset, commitContent, readRange, requireFile, writeAt } from "./content.ts";
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { CHUNK_SIZE } from "./limits.ts";
import { resolveExisting } from "./resolve.ts";
import type { NodeRow } from "./store.ts";

/** Bytes one call copies without sharing chunks (keeps a call's memory bounded). */
export const BYTE_COPY_MAX = 16 * CHUNK_SIZE;

const SYSCALL = "copy_file_range";

/** The result of a copy: bytes copied and the target's new inode row. */
export interface CopyResult {
  copied: number;
  node: NodeRow;
}

/**
 * Copies up to `length` bytes of `from` at `fromOffset` to `to` at `toOffset` (both regular
 * files; the copy stops at the source's end). Overlapping ranges of one file are EINVAL, as
 * in Linux. Returns the bytes copied (0 at or past the source's end).
 */
export function copyRange(
  ctx: Context,
  from: string,
  fromOffset: number,
  to: string,
  toOffset: number,
  length: number,
): CopyResult {
  checkOffset(fromOffset, SYSCALL, from, "offset");
  checkOffset(length, SYSCALL, from, "length");
  checkFilePosition(toOffset, SYSCALL, to, "offset");
  return ctx.mutate(() => {
    const source = requireFile(resolveExisting(ctx, from, SYSCALL, true).node, SYSCALL, from);
    const target = resolveExisting(ctx, to, SYSCALL, true);
    requireFile(target.node, SYSCALL, to);
    const wanted = Math.max(0, Math.min(length, source.size - fromOffset));
    checkFilePosition(toOffset + wanted, SYSCALL, to, "end");
    if (source.ino === target.node.ino && wanted > 0) {
      if (fromOffset < toOffset + wanted && toOffset < fromOffset + wanted)
        throw new FsError("EINVAL", SYSCALL, to, "overlapping ranges of one file");
    }
    if (wanted === 0) return { copied: 0, node: target.node };
    const shared = shareChunks(ctx, source, fromOffset, target.node, toOffset, wanted);
    let node = { ...target.node, ...shared.fields };
    if (shared.copied > 0) {
      node = commitContent(
        ctx,
        { ...target, node: target.node },
        shared.fields.size,
        shared.fields.allocated,
        SYSCALL,
      );
    }
    const rest = Math.min(wanted - shared.copied, BYTE_COPY_MAX);
    if (rest > 0) {
      const bytes = readRange(ctx, source, fromOffset + shared.copied, rest, from);
      node = writeAt(ctx, { ...target, node }, toOffset + shared.copied, bytes, SYSCALL);
    }
    return { copied: shared.copied + rest, node };
  });
}

/**
 * Points the target's chunks at the source's for every chunk of the range both offsets share
 * whole: full chunks, and the source's last one when the target ends where the copy does.
 * Source holes become target holes. Returns the bytes covered and the target's new size and
 * allocation (nothing is shared when the offsets are not both chunk-aligned).
 */
function shareChunks(
  ctx: Context,
  source: NodeRow,
  fromOffset: number,
  target: NodeRow,
  toOffset: number,
  length: number,
): { copied: number; fields: { size: number; allocated: number } } {
  const fields = { size: target.size, allocated: target.allocated };
  if (fromOffset % CHUNK_SIZE !== 0 || toOffset % CHUNK_SIZE !== 0) return { copied: 0, fields };
  const end = fromOffset + length;
  let count = Math.floor(length / CHUNK_SIZE);
  // The source's last, partial chunk is shared too when nothing of the target lies past it.
  const tail = length % CHUNK_SIZE;
  if (tail > 0 && end === source.size && toOffset + length >= target.size) count++;
  if (count === 0) return { copied: 0, fields };
  const first = fromOffset / CHUNK_SIZE;
  const shift = toOffset / CHUNK_SIZE - first;
  const chunks = new Map(ctx.store.chunks(source.ino, first, first + count - 1).map((c) => [c.idx, c]));
  const old = new Map(
    ctx.store.chunks(target.ino, first + shift, first + shift + count - 1).map((c) => [c.idx, c]),
  );
  for (let idx = first; idx < first + count; idx++) {
    const chunk = chunks.get(idx);
    const before = old.get(idx + shift)?.size ?? 0;
    if (chunk) ctx.store.setChunk(target.ino, idx + shift, chunk.hash, chunk.size);
    else if (before > 0) ctx.store.deleteChunk(target.ino, idx + shift);
    fields.allocated += (chunk?.size ?? 0) - before;
  }
  const copied = Math.min(length, count * CHUNK_SIZE);
  fields.size = Math.max(target.size, toOffset + copied);
  return { copied, fields };
}
