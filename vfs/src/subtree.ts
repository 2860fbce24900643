/**
 * Walking and deleting whole directory subtrees, used by rm -r, rename and
 * checkpoint restore to record every path they touch in the change feed.
 */
import type { Context } from "./context.ts";
import { childPath } from "./paths.ts";
import { recordNames } from "./resolve.ts";
import type { NodeRow } from "./store.ts";

/** Every path strictly below directory `ino` (whose path is `path`), parents before children. */
export function* descendants(
  ctx: Context,
  ino: number,
  path: string,
): Generator<{ path: string; ino: number; type: string }> {
  const pending: { ino: number; path: string }[] = [{ ino, path }];
  while (pending.length > 0) {
    const dir = pending.pop() as { ino: number; path: string };
    const rows = ctx.store.sql.exec<{ name: string; ino: number; type: string }>(
      "SELECT d.name AS name, d.ino AS ino, n.type AS type FROM dirents d JOIN nodes n ON n.ino = d.ino WHERE d.parent = ?",
      dir.ino,
    );
    for (const row of rows) {
      const p = childPath(dir.path, row.name);
      yield { path: p, ino: row.ino, type: row.type };
      if (row.type === "dir") pending.push({ ino: row.ino, path: p });
    }
  }
}

/**
 * Drops one name of inode `ino`: decrements nlink and deletes the inode (and its
 * chunks) when no name is left, returning the bytes freed. `known` is its row when the caller
 * read it in this operation already (the path walk of unlink and rename does).
 */
export function dropLink(ctx: Context, ino: number, known?: NodeRow): number {
  const node = known ?? ctx.store.node(ino);
  if (!node) return 0;
  if (node.type !== "dir" && node.nlink > 1) {
    const now = ctx.clock();
    const changed = { nlink: node.nlink - 1, ctime_s: now.sec, ctime_ns: now.nsec };
    ctx.store.updateNode(ino, changed);
    // The surviving file's new row (Vfs.touchedNodes).
    ctx.touchedNodes.set(ino, { ...node, ...changed });
    return 0;
  }
  ctx.store.deleteNode(ino);
  return node.allocated;
}

/** Deletes everything below directory `ino`, recording each path as deleted. Returns bytes freed. */
export function deleteDescendants(ctx: Context, ino: number, path: string): number {
  ctx.store.forgetCached();
  const all = [...descendants(ctx, ino, path)];
  let freed = 0;
  const linked = new Set<number>();
  // Children first, so directory rows go last.
  for (let i = all.length - 1; i >= 0; i--) {
    const entry = all[i] as { path: string; ino: number; type: string };
    if (entry.type === "dir") ctx.store.sql.exec("DELETE FROM dirents WHERE parent = ?", entry.ino);
    else linked.add(entry.ino);
    freed += dropLink(ctx, entry.ino);
    ctx.deleted(entry.path);
  }
  ctx.store.sql.exec("DELETE FROM dirents WHERE parent = ?", ino);
  // Files with a hard link outside the tree survive with a lower nlink under their other names.
  for (const survivor of linked) if (ctx.store.node(survivor)) recordNames(ctx, survivor);
  return freed;
}
