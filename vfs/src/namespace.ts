/**
 * Operations on names: mkdir, rmdir, unlink, rm, rename, link, symlink, mknod.
 * Each runs as one transaction and records every path it changes.
 */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { PATH_MAX, ROOT_INO } from "./limits.ts";
import { byteLength, checkName, isWithin, splitPath } from "./paths.ts";
import { type Location, locate, recordInode, recordNames, resolveExisting } from "./resolve.ts";
import { NODE_COLUMNS, type NodeRow } from "./store.ts";
import { deleteDescendants, descendants, dropLink } from "./subtree.ts";
import type { FileType, MkdirOptions, RmOptions, Timespec } from "./types.ts";

/**
 * Adds the entry `at` names and bumps the parent's mtime/ctime (and nlink for a subdirectory);
 * the parent's new stat goes to the feed too.
 */
export function addChild(ctx: Context, at: Location, ino: number, isDir: boolean, time?: Timespec): void {
  ctx.store.addEntry(at.parent, at.name, ino);
  touchParent(ctx, at.parent, isDir ? 1 : 0, time);
  ctx.changed(at.parentPath);
}

/** Removes the entry `at` names and bumps the parent like addChild. */
function removeChild(ctx: Context, at: Location, isDir: boolean): void {
  ctx.store.removeEntry(at.parent, at.name);
  touchParent(ctx, at.parent, isDir ? -1 : 0);
  ctx.changed(at.parentPath);
}

/**
 * Marks a directory's entries as changed (mtime/ctime: now, or the `time` a node's maker gave),
 * adjusting its nlink by the subdirectories gained or lost.
 */
export function touchParent(ctx: Context, parent: number, nlinkDelta: number, time?: Timespec): void {
  const now = time ? ctx.given(time) : ctx.clock();
  // The directory's new row comes back with the update (Vfs.touchedNodes).
  const [row] = ctx.store.sql.exec<NodeRow>(
    `UPDATE nodes SET nlink = nlink + ?, mtime_s = ?, mtime_ns = ?, ctime_s = ?, ctime_ns = ? WHERE ino = ? RETURNING ${NODE_COLUMNS}`,
    nlinkDelta,
    now.sec,
    now.nsec,
    now.sec,
    now.nsec,
    parent,
  );
  if (row) ctx.touchedNodes.set(row.ino, row);
}

function checkMode(mode: number, syscall: string, path: string): number {
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
    throw new FsError("EINVAL", syscall, path, `invalid mode ${mode}`);
  }
  return mode;
}

/**
 * Creates a directory; with `recursive`, creates missing parents and accepts an existing
 * directory. Answers the directory's row (a new one's as it was inserted: no read back).
 */
export function mkdir(ctx: Context, path: string, options: MkdirOptions = {}, made?: MadeAs): NodeRow {
  const mode = checkMode(options.mode ?? 0o755, "mkdir", path);
  return ctx.mutate(() => {
    if (!options.recursive || made) {
      const loc = locate(ctx, path, "mkdir", false);
      if (loc.node) throw new FsError("EEXIST", "mkdir", path);
      checkName(loc.name, "mkdir", path);
      return makeDir(ctx, loc, mode, made);
    }
    return mkdirp(ctx, path, mode);
  });
}

/** Inserts a new directory at `loc` (numbered and dated as `made` says) and records it; answers its row. */
function makeDir(ctx: Context, loc: Location, mode: number, made?: MadeAs): NodeRow {
  const row = {
    ...ctx.newNode("dir", mode, made ? madeColumns(ctx, made) : {}),
    ...(made ? { ino: made.ino } : {}),
  };
  const ino = ctx.store.insertNode(row);
  // Its directory changed at the same time: the maker answered that too.
  addChild(ctx, loc, ino, true, made?.time);
  ctx.changed(loc.path);
  return { ...row, ino };
}

/** mkdir -p: creates each missing directory of `path`. Answers the row of the last one. */
export function mkdirp(ctx: Context, path: string, mode = 0o755): NodeRow {
  let loc: ReturnType<typeof locate> | undefined;
  try {
    loc = locate(ctx, path, "mkdir", true);
  } catch (err) {
    if (!(err instanceof FsError && err.code === "ENOENT")) throw err;
  }
  if (loc?.node) {
    if (loc.node.type !== "dir") throw new FsError("EEXIST", "mkdir", path);
    return loc.node;
  }
  return createMissing(ctx, path, mode);
}

function createMissing(ctx: Context, path: string, mode: number): NodeRow {
  // Walk from the root creating what is missing; locate() throws ENOENT for a missing middle.
  const parts = splitPath(path, "mkdir");
  let prefix = "";
  let dir: NodeRow | undefined;
  for (const part of parts) {
    prefix = `${prefix}/${part}`;
    const loc = locate(ctx, prefix, "mkdir", true);
    if (loc.node) {
      if (loc.node.type !== "dir") throw new FsError("ENOTDIR", "mkdir", path);
      dir = loc.node;
      continue;
    }
    // A dangling symlink is a name that is not a directory: refuse it as for a file, never create its target.
    if (locate(ctx, prefix, "mkdir", false).node) throw new FsError("EEXIST", "mkdir", path);
    checkName(loc.name, "mkdir", path);
    dir = makeDir(ctx, loc, mode);
  }
  // No name left ("/a/.."): the root, as before.
  const root = dir ?? ctx.store.node(ROOT_INO);
  if (!root) throw new FsError("ENOENT", "mkdir", path);
  return root;
}

/** Removes an empty directory. */
export function rmdir(ctx: Context, path: string): void {
  ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "rmdir", false);
    if (loc.node.type !== "dir") throw new FsError("ENOTDIR", "rmdir", path);
    if (loc.node.ino === ROOT_INO) throw new FsError("EBUSY", "rmdir", path);
    if (ctx.store.hasEntries(loc.node.ino)) throw new FsError("ENOTEMPTY", "rmdir", path);
    removeChild(ctx, loc, true);
    ctx.store.deleteNode(loc.node.ino);
    ctx.deleted(loc.path);
  });
}

/** Removes a name that is not a directory. */
export function unlink(ctx: Context, path: string): void {
  ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "unlink", false);
    if (loc.node.type === "dir") throw new FsError("EISDIR", "unlink", path);
    removeChild(ctx, loc, false);
    ctx.charge(-dropLink(ctx, loc.node.ino, loc.node), "unlink", path);
    ctx.deleted(loc.path);
    if (loc.node.nlink > 1) recordNames(ctx, loc.node.ino);
  });
}

/** rm: files, and with `recursive` whole trees; `force` ignores a missing path. */
export function rm(ctx: Context, path: string, options: RmOptions = {}): void {
  ctx.mutate(() => {
    let loc: ReturnType<typeof locate>;
    try {
      loc = locate(ctx, path, "rm", false);
    } catch (err) {
      // rm -f is quiet about a missing path, also when a parent is what is missing.
      if (options.force && err instanceof FsError && err.code === "ENOENT") return;
      throw err;
    }
    if (!loc.node) {
      if (options.force) return;
      throw new FsError("ENOENT", "rm", path);
    }
    if (loc.node.type !== "dir") {
      unlink(ctx, path);
      return;
    }
    if (!options.recursive) throw new FsError("EISDIR", "rm", path, "is a directory (use recursive)");
    if (loc.node.ino === ROOT_INO) throw new FsError("EBUSY", "rm", path);
    const freed = deleteDescendants(ctx, loc.node.ino, loc.path);
    removeChild(ctx, loc, true);
    ctx.store.deleteNode(loc.node.ino);
    ctx.charge(-freed, "rm", path);
    ctx.deleted(loc.path);
  });
}

/** What a rename moves: the source, and the destination (its node is what it replaces). */
interface RenamePlan {
  src: Location & { node: NodeRow };
  dst: Location;
}

/**
 * Every check of rename, in its order, without changing anything. Undefined when both
 * paths name one inode (rename does nothing then).
 */
function planRename(ctx: Context, from: string, to: string): RenamePlan | undefined {
  const src = resolveExisting(ctx, from, "rename", false);
  const dst = locate(ctx, to, "rename", false);
  if (src.node.ino === ROOT_INO || dst.path === "/") throw new FsError("EBUSY", "rename", from);
  const srcIsDir = src.node.type === "dir";
  if (srcIsDir && isWithin(dst.path, src.path) && dst.path !== src.path) {
    throw new FsError("EINVAL", "rename", from, "cannot move a directory into itself");
  }
  checkName(dst.name, "rename", to);
  if (!dst.node) return { src, dst };
  if (dst.node.ino === src.node.ino) return undefined;
  const dstIsDir = dst.node.type === "dir";
  if (srcIsDir && !dstIsDir) throw new FsError("ENOTDIR", "rename", to);
  if (!srcIsDir && dstIsDir) throw new FsError("EISDIR", "rename", to);
  if (dstIsDir && ctx.store.hasEntries(dst.node.ino)) throw new FsError("ENOTEMPTY", "rename", to);
  return { src, dst };
}

/** Throws what rename(from, to) would throw; changes nothing. */
export function checkRename(ctx: Context, from: string, to: string): void {
  planRename(ctx, from, to);
}

/** POSIX rename: atomic, replaces a file or an empty directory of the same kind. */
export function rename(ctx: Context, from: string, to: string): void {
  ctx.mutate(() => {
    const plan = planRename(ctx, from, to);
    if (!plan) return;
    const { src, dst } = plan;
    const srcIsDir = src.node.type === "dir";
    let freed = 0;
    if (dst.node) {
      removeChild(ctx, dst, dst.node.type === "dir");
      freed = dropLink(ctx, dst.node.ino, dst.node);
    }
    const moved = srcIsDir ? [...descendants(ctx, src.node.ino, src.path)] : [];
    removeChild(ctx, src, srcIsDir);
    addChild(ctx, dst, src.node.ino, srcIsDir);
    ctx.store.touch(src.node.ino, ctx.clock(), false);
    ctx.charge(-freed, "rename", to);
    ctx.deleted(src.path);
    for (const d of moved) ctx.deleted(d.path);
    recordInode(ctx, src.node, dst.path);
    for (const d of moved) ctx.changed(dst.path + d.path.slice(src.path.length));
    if (dst.node && dst.node.type !== "dir" && dst.node.nlink > 1) recordNames(ctx, dst.node.ino);
  });
}

/** Creates a hard link `newPath` to the existing non-directory `existing`. */
export function link(ctx: Context, existing: string, newPath: string): void {
  ctx.mutate(() => {
    const src = resolveExisting(ctx, existing, "link", false);
    if (src.node.type === "dir") throw new FsError("EPERM", "link", existing);
    const dst = locate(ctx, newPath, "link", false);
    if (dst.node) throw new FsError("EEXIST", "link", newPath);
    checkName(dst.name, "link", newPath);
    addChild(ctx, dst, src.node.ino, false);
    const now = ctx.clock();
    const changed = { nlink: src.node.nlink + 1, ctime_s: now.sec, ctime_ns: now.nsec };
    ctx.store.updateNode(src.node.ino, changed);
    // The file's new row (Vfs.touchedNodes): a cache of its attributes need not read it again.
    ctx.touchedNodes.set(src.node.ino, { ...src.node, ...changed });
    recordNames(ctx, src.node.ino);
  });
}

/** Creates a symbolic link at `path` pointing to `target` (stored verbatim). */
export function symlink(ctx: Context, target: string, path: string): void {
  if (typeof target !== "string" || target === "" || target.includes("\0")) {
    throw new FsError("EINVAL", "symlink", path, "invalid symlink target");
  }
  if (byteLength(target) > PATH_MAX) throw new FsError("ENAMETOOLONG", "symlink", path);
  ctx.mutate(() => {
    const loc = locate(ctx, path, "symlink", false);
    if (loc.node) throw new FsError("EEXIST", "symlink", path);
    checkName(loc.name, "symlink", path);
    const ino = ctx.store.insertNode(ctx.newNode("symlink", 0o777, { target, size: byteLength(target) }));
    addChild(ctx, loc, ino, false);
    ctx.changed(loc.path);
  });
}

/**
 * A node its maker numbered and dated before the vfs had it: the FUSE loop answers a create
 * with an inode number reserved ahead (Store.reserveInodes), the caller's ids and its own clock,
 * which also dates the change of its directory.
 */
export interface MadeAs {
  ino: number;
  uid: number;
  gid: number;
  time: Timespec;
}

function madeColumns(ctx: Context, made: MadeAs): Partial<NodeRow> {
  const { sec, nsec } = ctx.given(made.time);
  return {
    uid: made.uid,
    gid: made.gid,
    atime_s: sec,
    atime_ns: nsec,
    mtime_s: sec,
    mtime_ns: nsec,
    ctime_s: sec,
    ctime_ns: nsec,
  };
}

/** Creates a special file (fifo, socket, char or block device) or an empty regular file. */
export function mknod(
  ctx: Context,
  path: string,
  type: FileType,
  mode: number,
  rdev = 0,
  made?: MadeAs,
): NodeRow {
  if (type === "dir" || type === "symlink")
    throw new FsError("EINVAL", "mknod", path, `mknod cannot make a ${type}`);
  checkMode(mode, "mknod", path);
  return ctx.mutate(() => {
    const loc = locate(ctx, path, "mknod", false);
    if (loc.node) throw new FsError("EEXIST", "mknod", path);
    checkName(loc.name, "mknod", path);
    const extra = {
      rdev: type === "char" || type === "block" ? rdev : 0,
      ...(made ? madeColumns(ctx, made) : {}),
    };
    const row = { ...ctx.newNode(type, mode, extra), ...(made ? { ino: made.ino } : {}) };
    const ino = ctx.store.insertNode(row);
    // Its directory changed at the same time: the maker answered that too.
    addChild(ctx, loc, ino, false, made?.time);
    ctx.changed(loc.path);
    return { ...row, ino };
  });
}
