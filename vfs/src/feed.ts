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

/**
 * A position in the feed: after (rev, path) in (rev, path) order. `floor` is the revision up to
 * which the holder needs no deletions: its own position for an incremental reader, but the
 * pruning horizon for a reader that started from "0", whose first pages carry old revisions
 * without it having missed anything. Written "rev:path" (floor rev - 1), "rev" (all of rev
 * seen, floor rev) or "rev/floor:path".
 */
interface Cursor {
  rev: number;
  path: string;
  floor: number;
}

/** Sorts after every path: a cursor without a path has seen all of its revision. */
const END_OF_REV = "\u{10ffff}";

function parseCursor(cursor: string): Cursor {
  if (cursor === "0" || cursor === "") return { rev: 0, path: "", floor: 0 };
  const colon = cursor.indexOf(":");
  const [revText = "", floorText, extra] = (colon === -1 ? cursor : cursor.slice(0, colon)).split("/");
  const rev = Number(revText);
  const path = colon === -1 ? END_OF_REV : cursor.slice(colon + 1);
  // Mid-revision, deletions of this very revision may still be ahead.
  const floor = floorText === undefined ? (path === END_OF_REV ? rev : rev - 1) : Number(floorText);
  if (
    revText === "" ||
    extra !== undefined ||
    !Number.isSafeInteger(rev) ||
    rev < 0 ||
    !Number.isSafeInteger(floor)
  ) {
    throw new FsError("EINVAL", "changes", undefined, "invalid cursor");
  }
  return { rev, path, floor };
}

function formatCursor(rev: number, path: string, floor: number): string {
  // A cursor with a path implies floor = rev - 1; write the floor only when it says more.
  return floor >= rev ? `${rev}/${floor}:${path}` : `${rev}:${path}`;
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
 * `describeEach: false` leaves out each path's current state (path and revision only: no
 * lookups), for readers that read the states themselves.
 */
export function changes(ctx: Context, cursor: string, limit = 1000, describeEach = true): ChangesPage {
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new FsError("EINVAL", "changes", undefined, "invalid limit");
  const from = parseCursor(cursor);
  const pruned = ctx.store.metaValue("pruned") ?? 0;
  // Pruned deletions have revisions <= pruned; the holder needs those after its floor and its position.
  const reset =
    from.rev > 0 &&
    pruned > from.floor &&
    (pruned > from.rev || (pruned === from.rev && from.path !== END_OF_REV));
  const start = reset || from.rev === 0 ? { rev: 0, path: "", floor: pruned } : from;
  // A row-value comparison, so SQLite seeks in changes_rev to the cursor (with `rev > ? OR ...`
  // it scanned the index from the start on every page: quadratic in the feed's length).
  const rows = ctx.store.sql.exec<{ path: string; rev: number; deleted: number }>(
    "SELECT path, rev, deleted FROM changes WHERE (rev, path) > (?, ?) ORDER BY rev, path LIMIT ?",
    start.rev,
    start.path,
    limit + 1,
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const list = page.map((row) =>
    row.deleted || !describeEach ? { path: row.path, rev: row.rev } : describe(ctx, row.path, row.rev),
  );
  const cursors = page.map((row) => formatCursor(row.rev, row.path, start.floor));
  let next = cursors[cursors.length - 1] ?? cursor;
  if (page.length === 0 && (start !== from || cursor === ""))
    next = String(Math.max(ctx.currentRev(), start.floor));
  return { changes: list, cursors, cursor: next, more, reset };
}
