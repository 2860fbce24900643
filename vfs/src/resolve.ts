/**
 * Path resolution: walks directory entries from the root, following symlinks
 * (at most SYMLOOP_MAX hops), and returns the entry a path names together with
 * its parent. Misses are returned, not thrown, so creators can use them cheaply.
 */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { ROOT_INO, SYMLOOP_MAX, WORKSPACE } from "./limits.ts";
import { childPath, splitPath } from "./paths.ts";
import type { NodeRow } from "./store.ts";

/** Where a path leads. `node` is absent when the last name does not exist (its parent does). */
export interface Location {
  /** Canonical path (symlinks in parents resolved). */
  path: string;
  parent: number;
  parentPath: string;
  name: string;
  node: NodeRow | undefined;
}

interface Frame {
  ino: number;
  name: string;
}

/** Names of a symlink target; absolute targets under /workspace resolve inside the computer. */
function targetNames(target: string): { absolute: boolean; names: string[] } {
  if (!target.startsWith("/")) return { absolute: false, names: target.split("/") };
  let inside = target;
  if (target === WORKSPACE || target.startsWith(`${WORKSPACE}/`)) inside = target.slice(WORKSPACE.length);
  return { absolute: true, names: inside.split("/") };
}

function framesPath(stack: Frame[]): string {
  let path = "";
  for (let i = 1; i < stack.length; i++) path += `/${stack[i]?.name}`;
  return path === "" ? "/" : path;
}

/**
 * Resolves `path`. With `followLast` a symlink in the last position is followed too.
 * Throws ENOENT for a missing parent, ENOTDIR for a non-directory parent, ELOOP past
 * SYMLOOP_MAX hops.
 */
export function locate(ctx: Context, path: string, syscall: string, followLast: boolean): Location {
  const queue = splitPath(path, syscall);
  const stack: Frame[] = [{ ino: ROOT_INO, name: "" }];
  let hops = 0;
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (name === "" || name === ".") {
      if (queue.length === 0) return locateFrame(ctx, stack, syscall, path);
      continue;
    }
    if (name === "..") {
      if (stack.length > 1) stack.pop();
      if (queue.length === 0) return locateFrame(ctx, stack, syscall, path);
      continue;
    }
    const dir = stack[stack.length - 1] as Frame;
    const last = queue.length === 0;
    // Only the last name needs the whole row; the directories on the way need their type.
    const row = last ? ctx.store.lookupNode(dir.ino, name) : undefined;
    const node = last ? row : ctx.store.lookupStep(dir.ino, name);
    if (node === undefined) {
      if (last) {
        const parentPath = framesPath(stack);
        return { path: childPath(parentPath, name), parent: dir.ino, parentPath, name, node: undefined };
      }
      throw new FsError("ENOENT", syscall, path);
    }
    if (node.type === "symlink" && (!last || followLast)) {
      hops++;
      if (hops > SYMLOOP_MAX) throw new FsError("ELOOP", syscall, path);
      const target = targetNames(node.target ?? "");
      if (target.absolute) stack.length = 1;
      queue.unshift(...target.names);
      if (queue.every((n) => n === "" || n === ".")) queue.push(".");
      continue;
    }
    if (last) {
      const parentPath = framesPath(stack);
      return { path: childPath(parentPath, name), parent: dir.ino, parentPath, name, node: row };
    }
    if (node.type !== "dir") throw new FsError("ENOTDIR", syscall, path);
    stack.push({ ino: node.ino, name });
  }
  return locateFrame(ctx, stack, syscall, path);
}

/** The location of the directory on top of the stack (after `.`/`..` or for "/"). */
function locateFrame(ctx: Context, stack: Frame[], syscall: string, path: string): Location {
  const top = stack[stack.length - 1] as Frame;
  const parent = stack.length > 1 ? (stack[stack.length - 2] as Frame) : top;
  const node = ctx.store.node(top.ino);
  if (!node) throw new FsError("ENOENT", syscall, path);
  const full = framesPath(stack);
  return {
    path: full,
    parent: parent.ino,
    parentPath: framesPath(stack.slice(0, Math.max(1, stack.length - 1))),
    name: top.name,
    node,
  };
}

/** Resolves a path that must exist. */
export function resolveExisting(
  ctx: Context,
  path: string,
  syscall: string,
  followLast: boolean,
): Location & { node: NodeRow } {
  const loc = locate(ctx, path, syscall, followLast);
  if (!loc.node) throw new FsError("ENOENT", syscall, path);
  return loc as Location & { node: NodeRow };
}

/** The canonical path of a directory inode (directories have exactly one name). */
export function directoryPath(ctx: Context, ino: number): string {
  const names: string[] = [];
  let current = ino;
  while (current !== ROOT_INO) {
    const entry = ctx.store.directoryName(current);
    if (!entry) throw new Error(`directory ${current} has no name`);
    names.unshift(entry.name);
    current = entry.parent;
  }
  return names.length === 0 ? "/" : `/${names.join("/")}`;
}

/**
 * Records in the feed that inode `node`, reached by `path`, changed: under each of its
 * names when it is a hard-linked non-directory, whose stat every name shares.
 */
export function recordInode(ctx: Context, node: NodeRow, path: string): void {
  if (node.type !== "dir" && node.nlink > 1) recordNames(ctx, node.ino);
  else ctx.changed(path);
}

/** Records in the feed that each of `paths` changed (written with the operation's other records). */
export function recordPaths(ctx: Context, paths: readonly string[]): void {
  for (const path of paths) ctx.changed(path);
}

/** Records every name inode `ino` has now (e.g. the survivors after one of its links went away). */
export function recordNames(ctx: Context, ino: number): void {
  for (const path of pathsOf(ctx, ino)) ctx.changed(path);
}

/** Every path that names an inode (one per hard link). */
export function pathsOf(ctx: Context, ino: number): string[] {
  return ctx.store.namesOf(ino).map((e) => childPath(directoryPath(ctx, e.parent), e.name));
}
