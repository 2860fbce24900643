/**
 * The change feed: "what changed after cursor C", answered from the `changes`
 * table (one row per path, latest revision wins) without scanning the tree.
 * Each entry carries the path's current state, so pages are coalesced.
 */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { locate } from "./resolve.ts";
import { toStat } from "./store.ts";
import type { Change, ChangesPage } from "./types.ts";

interface Cursor {
  rev: number;
  path: string;
}

function parseCursor(cursor: string): Cursor {
  if (cursor === "0" || cursor === "") return { rev: 0, path: "" };
  const colon = cursor.indexOf(":");
  const rev = Number(colon === -1 ? cursor : cursor.slice(0, colon));
  if (!Number.isSafeInteger(rev) || rev < 0)
    throw new FsError("EINVAL", "changes", undefined, "invalid cursor");
  return { rev, path: colon === -1 ? "\u{10ffff}" : cursor.slice(colon + 1) };
}

/** The current state of `path` as a Change at `rev`. */
export function describe(ctx: Context, path: string, rev: number): Change {
  let node: ReturnType<typeof locate>["node"];
  try {
    node = locate(ctx, path, "changes", false).node;
  } catch {
    node = undefined;
  }
  if (!node) return { path, rev };
  const change: Change = { path, rev, stat: toStat(node) };
  if (node.type === "symlink") change.target = node.target ?? "";
  if (node.type === "file") {
    const hashes: string[] = [];
    for (const chunk of ctx.store.chunks(node.ino)) {
      while (hashes.length < chunk.idx) hashes.push("");
      hashes.push(chunk.hash);
    }
    change.chunks = hashes;
  }
  return change;
}

/**
 * Changes after `cursor` ("0" for everything), oldest first, at most `limit`.
 * `reset` says the cursor predates pruned deletions: start over from "0".
 */
export function changes(ctx: Context, cursor: string, limit = 1000): ChangesPage {
  const from = parseCursor(cursor);
  const pruned = ctx.store.metaValue("pruned") ?? 0;
  const reset = from.rev > 0 && from.rev < pruned;
  const start = reset ? { rev: 0, path: "" } : from;
  const rows = ctx.store.sql.exec<{ path: string; rev: number; deleted: number }>(
    "SELECT path, rev, deleted FROM changes WHERE rev > ? OR (rev = ? AND path > ?) ORDER BY rev, path LIMIT ?",
    start.rev,
    start.rev,
    start.path,
    limit + 1,
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const list = page.map((row) =>
    row.deleted ? { path: row.path, rev: row.rev } : describe(ctx, row.path, row.rev),
  );
  const last = page[page.length - 1];
  const next = last ? `${last.rev}:${last.path}` : cursor === "" || reset ? String(ctx.currentRev()) : cursor;
  return { changes: list, cursor: next, more, reset };
}
