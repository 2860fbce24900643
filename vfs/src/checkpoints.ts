/**
 * Checkpoints: a named copy of the tree's metadata (inodes, entries, chunk lists,
 * xattrs). Content is shared through content addressing, so a checkpoint costs
 * metadata only; restore swaps the live tables for the copy and records every path.
 */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { ROOT_INO } from "./limits.ts";
import { descendants } from "./subtree.ts";
import type { CheckpointInfo } from "./types.ts";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const COPIES = [
  [
    "nodes",
    "checkpoint_nodes",
    "ino, type, mode, uid, gid, nlink, size, rdev, allocated, target, atime_s, atime_ns, mtime_s, mtime_ns, ctime_s, ctime_ns",
  ],
  ["dirents", "checkpoint_dirents", "parent, name, ino"],
  ["chunks", "checkpoint_chunks", "ino, idx, hash, size"],
  ["xattrs", "checkpoint_xattrs", "ino, name, value"],
] as const;

function checkName(name: string): void {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new FsError("EINVAL", "checkpoint", undefined, "checkpoint names are 1-64 of [A-Za-z0-9._-]");
  }
}

export function createCheckpoint(ctx: Context, name: string): CheckpointInfo {
  checkName(name);
  return ctx.mutate(() => {
    if (ctx.store.sql.exec("SELECT 1 FROM checkpoints WHERE name = ?", name).length > 0) {
      throw new FsError("EEXIST", "checkpoint", undefined, `checkpoint '${name}' exists`);
    }
    const rev = ctx.currentRev();
    const created = ctx.nowMs();
    for (const [live, copy, columns] of COPIES) {
      ctx.store.sql.exec(`INSERT INTO ${copy} (cp, ${columns}) SELECT ?, ${columns} FROM ${live}`, name);
    }
    ctx.store.sql.exec("INSERT INTO checkpoints (name, rev, created) VALUES (?, ?, ?)", name, rev, created);
    return { name, rev, createdAt: new Date(created).toISOString() };
  });
}

export function listCheckpoints(ctx: Context): CheckpointInfo[] {
  return ctx.store.sql
    .exec<{ name: string; rev: number; created: number }>(
      "SELECT name, rev, created FROM checkpoints ORDER BY created, name",
    )
    .map((r) => ({ name: r.name, rev: r.rev, createdAt: new Date(r.created).toISOString() }));
}

export function deleteCheckpoint(ctx: Context, name: string): void {
  checkName(name);
  ctx.mutate(() => {
    if (ctx.store.sql.exec("DELETE FROM checkpoints WHERE name = ? RETURNING name", name).length === 0) {
      throw new FsError("ENOENT", "checkpoint", undefined, `no checkpoint '${name}'`);
    }
    for (const [, copy] of COPIES) ctx.store.sql.exec(`DELETE FROM ${copy} WHERE cp = ?`, name);
  });
}

/** Makes the live tree the checkpoint's. Every path of the old and new tree is recorded in the feed. */
export function restoreCheckpoint(ctx: Context, name: string): void {
  checkName(name);
  ctx.mutate(() => {
    if (ctx.store.sql.exec("SELECT 1 FROM checkpoints WHERE name = ?", name).length === 0) {
      throw new FsError("ENOENT", "checkpoint", undefined, `no checkpoint '${name}'`);
    }
    for (const entry of descendants(ctx, ROOT_INO, "/")) ctx.deleted(entry.path);
    ctx.store.forgetCached();
    for (const [live, copy, columns] of COPIES) {
      ctx.store.sql.exec(`DELETE FROM ${live}`);
      ctx.store.sql.exec(
        `INSERT INTO ${live} (${columns}) SELECT ${columns} FROM ${copy} WHERE cp = ?`,
        name,
      );
    }
    for (const entry of descendants(ctx, ROOT_INO, "/")) ctx.changed(entry.path);
    ctx.changed("/");
    const used =
      ctx.store.sql.exec<{ used: number | null }>("SELECT SUM(allocated) AS used FROM nodes")[0]?.used ?? 0;
    ctx.store.setMeta("used", used);
  });
}
