/**
 * Garbage collection, run from the DO alarm: deletes blobs no file or checkpoint
 * references and prunes change records of deleted paths, both only past a safety
 * window so in-flight streams and slow sync clients are not cut off.
 */
import type { Context } from "./context.ts";

export interface GcResult {
  blobsDeleted: number;
  changesPruned: number;
  /** Hashes of the deleted blobs that were placeholders (placeholders.ts): a peer may release them. */
  placeholdersDeleted: string[];
}

/** Default safety window: one hour. */
export const GC_WINDOW_MS = 60 * 60 * 1000;

export function gc(ctx: Context, windowMs = GC_WINDOW_MS): GcResult {
  return ctx.store.sql.transaction(() => {
    const now = ctx.nowMs();
    const horizon = now - windowMs;
    // A held blob (a peer references it without its bytes) stays whatever this side uses.
    const blobs = ctx.store.sql.exec<{ hash: string; placeholder: number }>(
      `DELETE FROM blobs WHERE created < ?
         AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.hash = blobs.hash)
         AND NOT EXISTS (SELECT 1 FROM checkpoint_chunks k WHERE k.hash = blobs.hash)
         AND NOT EXISTS (SELECT 1 FROM blob_holds h WHERE h.hash = blobs.hash)
       RETURNING hash, length(data) < size AS placeholder`,
      horizon,
    );
    // A mark remembers which revision was current when; deletions older than the
    // newest mark past the window can go, and cursors before it must resync.
    ctx.store.sql.exec(
      "INSERT INTO rev_marks (at, rev) VALUES (?, ?) ON CONFLICT (at) DO UPDATE SET rev = excluded.rev",
      now,
      ctx.currentRev(),
    );
    const mark = ctx.store.sql.exec<{ rev: number }>(
      "SELECT rev FROM rev_marks WHERE at < ? ORDER BY at DESC LIMIT 1",
      horizon,
    )[0];
    let pruned: { path: string }[] = [];
    if (mark) {
      pruned = ctx.store.sql.exec<{ path: string }>(
        "DELETE FROM changes WHERE deleted = 1 AND rev <= ? RETURNING path",
        mark.rev,
      );
      ctx.store.sql.exec(
        "DELETE FROM rev_marks WHERE at < (SELECT at FROM rev_marks WHERE at < ? ORDER BY at DESC LIMIT 1)",
        horizon,
      );
      if (pruned.length > 0)
        ctx.store.setMeta("pruned", Math.max(ctx.store.metaValue("pruned") ?? 0, mark.rev));
    }
    return {
      blobsDeleted: blobs.length,
      changesPruned: pruned.length,
      placeholdersDeleted: blobs.filter((b) => b.placeholder).map((b) => b.hash),
    };
  });
}
