/** Extended attributes: stored per inode, listed, removed, and carried by checkpoints and fork. */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { XATTR_NAME_MAX, XATTR_SIZE_MAX } from "./limits.ts";
import { byteLength } from "./paths.ts";
import { recordInode, resolveExisting } from "./resolve.ts";

export interface XattrFlags {
  /** XATTR_CREATE: fail with EEXIST if the attribute exists. */
  create?: boolean;
  /** XATTR_REPLACE: fail with ENODATA if it does not. */
  replace?: boolean;
}

function checkXattrName(name: string, path: string): void {
  if (typeof name !== "string" || name === "" || byteLength(name) > XATTR_NAME_MAX) {
    throw new FsError("EINVAL", "setxattr", path, "invalid attribute name");
  }
}

/** True when any inode has an attribute named `name`. */
export function xattrInUse(ctx: Context, name: string): boolean {
  return ctx.store.sql.exec("SELECT 1 FROM xattrs WHERE name = ? LIMIT 1", name).length > 0;
}

export function getxattr(ctx: Context, path: string, name: string, follow: boolean): Uint8Array {
  const loc = resolveExisting(ctx, path, "getxattr", follow);
  const row = ctx.store.sql.exec<{ value: Uint8Array }>(
    "SELECT value FROM xattrs WHERE ino = ? AND name = ?",
    loc.node.ino,
    name,
  )[0];
  if (!row) throw new FsError("ENODATA", "getxattr", path);
  return row.value;
}

export function listxattr(ctx: Context, path: string, follow: boolean): string[] {
  const loc = resolveExisting(ctx, path, "listxattr", follow);
  return ctx.store.sql
    .exec<{ name: string }>("SELECT name FROM xattrs WHERE ino = ? ORDER BY name", loc.node.ino)
    .map((r) => r.name);
}

export function setxattr(
  ctx: Context,
  path: string,
  name: string,
  value: Uint8Array,
  flags: XattrFlags,
  follow: boolean,
): void {
  checkXattrName(name, path);
  if (value.length > XATTR_SIZE_MAX)
    throw new FsError("EINVAL", "setxattr", path, "attribute value too large");
  ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "setxattr", follow);
    const exists =
      ctx.store.sql.exec("SELECT 1 FROM xattrs WHERE ino = ? AND name = ?", loc.node.ino, name).length > 0;
    if (flags.create && exists) throw new FsError("EEXIST", "setxattr", path);
    if (flags.replace && !exists) throw new FsError("ENODATA", "setxattr", path);
    ctx.store.sql.exec(
      "INSERT INTO xattrs (ino, name, value) VALUES (?, ?, ?) ON CONFLICT (ino, name) DO UPDATE SET value = excluded.value",
      loc.node.ino,
      name,
      value,
    );
    ctx.store.touch(loc.node.ino, ctx.clock(), false);
    recordInode(ctx, loc.node, loc.path);
  });
}

export function removexattr(ctx: Context, path: string, name: string, follow: boolean): void {
  ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "removexattr", follow);
    const removed = ctx.store.sql.exec(
      "DELETE FROM xattrs WHERE ino = ? AND name = ? RETURNING name",
      loc.node.ino,
      name,
    );
    if (removed.length === 0) throw new FsError("ENODATA", "removexattr", path);
    ctx.store.touch(loc.node.ino, ctx.clock(), false);
    recordInode(ctx, loc.node, loc.path);
  });
}
