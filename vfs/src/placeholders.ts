/**
 * Blobs known by hash and size before their bytes arrive, and blobs kept for a peer that
 * references them that way.
 *
 * A *placeholder* is a `blobs` row whose `data` is shorter than its `size` (empty): a file can
 * point at it (setChunks, copyRange share it like any blob), but reading it throws EIO, never
 * zeros (content.ts), until `putBlob` stores the bytes under the same hash. computerd's mirror
 * takes large files from the Durable Object this way and fetches a chunk when it is first read.
 *
 * A *hold* keeps a blob from GC although no file of this side may reference it any more: the
 * Durable Object holds every blob it sent as a placeholder until the peer releases it (it has
 * the bytes, or dropped the placeholder). Each hold carries the sequence number of the batch
 * that sent it; a release names the highest number the peer had seen, so a blob sent again
 * after the peer let it go stays held.
 */
import type { Context } from "./context.ts";

/**
 * A read of a chunk whose bytes are not here (a placeholder) or could not be fetched: EIO to
 * the reader, never zeros. Not an FsError: only a side that fetches (computerd's mirror) has
 * placeholders, so no API answer of the Durable Object ever carries it.
 */
export class ChunkUnavailableError extends Error {
  readonly code = "EIO";
  readonly path: string | undefined;

  constructor(path: string | undefined, detail: string) {
    super(`EIO: input/output error, read${path === undefined ? "" : ` '${path}'`} (${detail})`);
    this.name = "ChunkUnavailableError";
    this.path = path;
  }
}

/** A blob named by hash and size, its bytes elsewhere. */
export interface BlobRef {
  hash: string;
  size: number;
}

/** A chunk of a file whose blob is a placeholder. */
export interface PlaceholderChunk {
  idx: number;
  hash: string;
  size: number;
}

const PLACEHOLDER = "length(b.data) < b.size";

/** Records blobs by hash and size where none is stored yet (existing ones stay as they are). */
export function putPlaceholders(ctx: Context, refs: readonly BlobRef[]): void {
  if (refs.length === 0) return;
  ctx.store.sql.exec(
    `INSERT INTO blobs (hash, size, created, data)
       SELECT json_extract(value, '$.hash'), json_extract(value, '$.size'), ?, x'' FROM jsonb_each(?)
       WHERE true ON CONFLICT (hash) DO NOTHING`,
    ctx.nowMs(),
    JSON.stringify(refs.map(({ hash, size }) => ({ hash, size }))),
  );
}

/** True when the blob of `hash` is a placeholder (known, bytes not here). */
export function isPlaceholder(ctx: Context, hash: string): boolean {
  return ctx.store.sql.exec(`SELECT 1 FROM blobs b WHERE b.hash = ? AND ${PLACEHOLDER}`, hash).length > 0;
}

/** The chunks of inode `ino` from index `first` to `last` (inclusive) whose blob is a placeholder. */
export function placeholderChunks(
  ctx: Context,
  ino: number,
  first: number,
  last: number,
): PlaceholderChunk[] {
  return ctx.store.sql.exec<PlaceholderChunk>(
    `SELECT c.idx AS idx, c.hash AS hash, c.size AS size FROM chunks c JOIN blobs b ON b.hash = c.hash
       WHERE c.ino = ? AND c.idx BETWEEN ? AND ? AND ${PLACEHOLDER} ORDER BY c.idx`,
    ino,
    first,
    last,
  );
}

/** Every inode with at least one placeholder chunk. */
export function placeholderInodes(ctx: Context): number[] {
  return ctx.store.sql
    .exec<{ ino: number }>(
      `SELECT DISTINCT c.ino AS ino FROM blobs b JOIN chunks c ON c.hash = b.hash WHERE ${PLACEHOLDER}`,
    )
    .map((row) => row.ino);
}

/** Holds `hashes` under a new sequence number (GC keeps them until released); returns it. */
export function holdBlobs(ctx: Context, hashes: readonly string[]): number {
  const seq = ctx.store.addMeta("holdSeq", 1);
  ctx.store.sql.exec(
    `INSERT INTO blob_holds (hash, seq) SELECT value, ? FROM json_each(?)
       WHERE true ON CONFLICT (hash) DO UPDATE SET seq = excluded.seq`,
    seq,
    JSON.stringify(hashes),
  );
  return seq;
}

/** Releases the holds of `hashes` made at sequence `upTo` or before; answers how many went. */
export function releaseBlobs(ctx: Context, hashes: readonly string[], upTo: number): number {
  if (hashes.length === 0) return 0;
  return ctx.store.sql.exec(
    "DELETE FROM blob_holds WHERE seq <= ? AND hash IN (SELECT value FROM json_each(?)) RETURNING hash",
    upTo,
    JSON.stringify(hashes),
  ).length;
}

/** Releases every hold (the peer that had them is gone). */
export function releaseAllHolds(ctx: Context): void {
  ctx.store.sql.exec("DELETE FROM blob_holds");
}

/** Blobs currently held. */
export function heldBlobs(ctx: Context): number {
  return ctx.store.sql.exec<{ n: number }>("SELECT count(*) AS n FROM blob_holds")[0]?.n ?? 0;
}
