/**
 * Reading and changing attributes: stat, lstat, readdir, readlink, realpath,
 * chmod, chown, utimes.
 */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { execRows } from "./json-rows.ts";
import { locate, recordInode, recordNames, recordPaths, resolveExisting } from "./resolve.ts";
import { type NodeRow, toStat } from "./store.ts";
import { resolveTime } from "./time.ts";
import type { DirEntry, ReaddirOptions, ReaddirPage, Stat, TimeArg, Timespec } from "./types.ts";

export function stat(ctx: Context, path: string, follow: boolean): Stat {
  return toStat(resolveExisting(ctx, path, follow ? "stat" : "lstat", follow).node);
}

/** True when `path` resolves (following symlinks); never throws for a missing or invalid path. */
export function exists(ctx: Context, path: string): boolean {
  try {
    return locate(ctx, path, "access", true).node !== undefined;
  } catch {
    return false;
  }
}

/** One page of a directory, sorted by name. */
export function readdir(ctx: Context, path: string, options: ReaddirOptions = {}): ReaddirPage {
  const loc = resolveExisting(ctx, path, "scandir", true);
  if (loc.node.type !== "dir") throw new FsError("ENOTDIR", "scandir", path);
  const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(limit) || limit < 1) throw new FsError("EINVAL", "scandir", path, "invalid limit");
  // Ask for one more than the page to learn whether another page follows.
  const page = options.limit === undefined ? undefined : Math.min(limit, 1 << 30) + 1;
  const rows = ctx.store.entriesWithNodes(loc.node.ino, options.after, page);
  const more = rows.length > limit;
  const entries: DirEntry[] = rows.slice(0, limit).map((row) => ({
    name: row.name,
    type: row.type,
    ino: row.ino,
    size: row.size,
    mode: row.mode,
    mtime: { sec: row.mtime_s, nsec: row.mtime_ns },
  }));
  const last = entries[entries.length - 1];
  return more && last ? { entries, next: last.name } : { entries };
}

export function readlink(ctx: Context, path: string): string {
  const loc = resolveExisting(ctx, path, "readlink", false);
  if (loc.node.type !== "symlink") throw new FsError("EINVAL", "readlink", path, "not a symbolic link");
  return loc.node.target ?? "";
}

export function realpath(ctx: Context, path: string): string {
  return resolveExisting(ctx, path, "realpath", true).path;
}

export function chmod(ctx: Context, path: string, mode: number): void {
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777)
    throw new FsError("EINVAL", "chmod", path, "invalid mode");
  ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "chmod", true);
    const now = ctx.clock();
    ctx.store.updateNode(loc.node.ino, { mode, ctime_s: now.sec, ctime_ns: now.nsec });
    recordInode(ctx, loc.node, loc.path);
  });
}

/**
 * chown/lchown; -1 leaves an id unchanged. On non-directories it clears setuid, and setgid
 * when group-exec is set, as Linux does (setgid without group-exec marks mandatory locking
 * and stays).
 */
export function chown(ctx: Context, path: string, uid: number, gid: number, follow = true): void {
  for (const id of [uid, gid]) {
    if (!Number.isInteger(id) || id < -1 || id > 0xffffffff)
      throw new FsError("EINVAL", "chown", path, "invalid id");
  }
  ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "chown", follow);
    const node = loc.node;
    const now = ctx.clock();
    const mode = node.type === "dir" ? node.mode : node.mode & ~(node.mode & 0o010 ? 0o6000 : 0o4000);
    ctx.store.updateNode(node.ino, {
      uid: uid === -1 ? node.uid : uid,
      gid: gid === -1 ? node.gid : gid,
      mode,
      ctime_s: now.sec,
      ctime_ns: now.nsec,
    });
    recordInode(ctx, loc.node, loc.path);
  });
}

/** utimes/utimensat: set access and modification times; ctime becomes now. */
export function utimes(ctx: Context, path: string, atime: TimeArg, mtime: TimeArg, follow = true): void {
  ctx.mutate(() => {
    const loc = resolveExisting(ctx, path, "utimes", follow);
    setTimes(ctx, loc.node, loc.path, atime, mtime);
  });
}

/** New times for inode `ino`, which the caller knows is at `path` (it just read it there). */
export interface InodeTimes {
  ino: number;
  path: string;
  atime: Timespec;
  mtime: Timespec;
}

/**
 * utimes of many inodes at once, each at the path the caller just read it at: the same changes
 * without walking the paths, in one operation (one revision) and a few statements whatever
 * their number (the sync engine gives a batch's directories their final times this way: one
 * utimes each was a third of the Durable Object's statements applying an `npm install`).
 * ENOENT (and nothing changed) when an inode is missing; EINVAL for an invalid time.
 */
export function utimesInodes(ctx: Context, items: readonly InodeTimes[]): void {
  if (items.length === 0) return;
  for (const item of items) {
    resolveTime(item.atime, ctx.clock(), item.path);
    resolveTime(item.mtime, ctx.clock(), item.path);
  }
  ctx.mutate(() => {
    const found = new Map<number, { type: string; nlink: number }>();
    for (const row of execRows(
      ctx,
      "SELECT ino, type, nlink FROM nodes WHERE ino IN (SELECT value FROM json_each(?))",
      items.map((item) => item.ino),
    ) as { ino: number; type: string; nlink: number }[]) {
      found.set(row.ino, row);
    }
    const missing = items.find((item) => !found.has(item.ino));
    if (missing) throw new FsError("ENOENT", "utimes", missing.path, `no inode ${missing.ino}`);
    const now = ctx.clock();
    execRows(
      ctx,
      "UPDATE nodes SET atime_s = json_extract(j.value, '$[1]'), atime_ns = json_extract(j.value, '$[2]'), mtime_s = json_extract(j.value, '$[3]'), mtime_ns = json_extract(j.value, '$[4]'), ctime_s = ?, ctime_ns = ? FROM jsonb_each(?) AS j WHERE nodes.ino = json_extract(j.value, '$[0]')",
      items.map((item) => [item.ino, item.atime.sec, item.atime.nsec, item.mtime.sec, item.mtime.nsec]),
      now.sec,
      now.nsec,
    );
    // A file with other names changed at every one of them; anything else at the path given.
    const paths: string[] = [];
    for (const item of items) {
      const node = found.get(item.ino) as { type: string; nlink: number };
      if (node.type !== "dir" && node.nlink > 1) recordNames(ctx, item.ino);
      else paths.push(item.path);
    }
    recordPaths(ctx, paths);
  });
}

function setTimes(ctx: Context, node: NodeRow, path: string, atime: TimeArg, mtime: TimeArg): void {
  const now = ctx.clock();
  const a = resolveTime(atime, now, path);
  const m = resolveTime(mtime, now, path);
  ctx.store.updateNode(node.ino, {
    ...(a ? { atime_s: a.sec, atime_ns: a.nsec } : {}),
    ...(m ? { mtime_s: m.sec, mtime_ns: m.nsec } : {}),
    ctime_s: now.sec,
    ctime_ns: now.nsec,
  });
  recordInode(ctx, node, path);
}

/**
 * Stores an access time on inode `ino` and nothing else: no ctime, no change record, no
 * revision. A mount calls it for reads under `relatime` (POSIX counts an access as no change
 * of the file; the sync engine does not send atime on its own). One statement, joining the
 * caller's transaction.
 */
export function recordAccess(ctx: Context, ino: number, atime: Timespec): void {
  if (!Number.isSafeInteger(ino)) throw new FsError("EINVAL", "access", undefined, `invalid inode ${ino}`);
  const time = resolveTime(atime, ctx.clock(), `inode ${ino}`) ?? atime;
  if (ctx.store.node(ino) === undefined) throw new FsError("ENOENT", "access", undefined, `no inode ${ino}`);
  ctx.store.updateNode(ino, { atime_s: time.sec, atime_ns: time.nsec });
}
