/**
 * Creating many nodes in one operation, each with all its attributes and its chunk list, in a
 * fixed number of statements per call instead of a handful per node: the shape of a sync
 * batch's new files (a build output, `npm install`). Each distinct parent directory is resolved
 * once; the rows go in as JSON arrays (`jsonb_each`, json-rows.ts), one bound parameter per
 * statement whatever the count (a Durable Object allows at most 100). Blobs are referenced by hash
 * and must be stored already (putBlobs), as for setChunks.
 */
import { checkFilePosition } from "./content.ts";
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { execRows, ROWS_PER_STATEMENT } from "./json-rows.ts";
import { CHUNK_SIZE, PATH_MAX, ROOT_INO } from "./limits.ts";
import { byteLength, checkName, childPath, normalizePath } from "./paths.ts";
import { locate, recordPaths } from "./resolve.ts";
import type { SqlValue } from "./sql.ts";
import { NODE_COLUMNS, type NodeRow } from "./store.ts";
import { resolveTime } from "./time.ts";
import type { FileType, Timespec } from "./types.ts";

/** One node to create, with the attributes it ends up with (ctime becomes now). */
export interface NewNode {
  /** Where: its parent is an existing directory, or a directory created earlier in the same call. */
  path: string;
  type: FileType;
  /** Permission bits (ignored for symlinks, which are 0777). */
  mode: number;
  uid: number;
  gid: number;
  atime: Timespec;
  mtime: Timespec;
  /** Character and block devices. */
  rdev?: number;
  /** Symlinks: the target. */
  target?: string;
  /** Files: the size and one stored blob's hash per CHUNK_SIZE slot ("" = hole). */
  size?: number;
  chunks?: readonly string[];
}

const TYPES: ReadonlySet<string> = new Set(["file", "dir", "symlink", "fifo", "socket", "char", "block"]);

function checkId(id: number, path: string): void {
  if (!Number.isInteger(id) || id < 0 || id > 0xffffffff)
    throw new FsError("EINVAL", "create", path, "invalid id");
}

/** Throws EINVAL / ENAMETOOLONG / EFBIG for a node no single-node operation would create. */
function check(node: NewNode): string {
  const path = normalizePath(node.path, "create");
  if (path !== node.path || path === "/")
    throw new FsError("EINVAL", "create", String(node.path), "invalid path");
  if (!TYPES.has(node.type)) throw new FsError("EINVAL", "create", path, `invalid type ${String(node.type)}`);
  checkName(path.slice(path.lastIndexOf("/") + 1), "create", path);
  if (!Number.isInteger(node.mode) || node.mode < 0 || node.mode > 0o7777)
    throw new FsError("EINVAL", "create", path, "invalid mode");
  checkId(node.uid, path);
  checkId(node.gid, path);
  for (const time of [node.atime, node.mtime]) resolveTime(time, time, path);
  if (node.type === "symlink") {
    const target = node.target;
    if (typeof target !== "string" || target === "" || target.includes("\0"))
      throw new FsError("EINVAL", "symlink", path, "invalid symlink target");
    if (byteLength(target) > PATH_MAX) throw new FsError("ENAMETOOLONG", "symlink", path);
  }
  if (node.type === "char" || node.type === "block") {
    if (!Number.isSafeInteger(node.rdev ?? 0) || (node.rdev ?? 0) < 0)
      throw new FsError("EINVAL", "mknod", path, "invalid device");
  }
  if (node.type === "file") {
    const size = node.size ?? 0;
    checkFilePosition(size, "write", path, "size");
    if ((node.chunks?.length ?? 0) > Math.ceil(size / CHUNK_SIZE))
      throw new FsError("EINVAL", "write", path, "chunks past the end of the file");
  }
  return path;
}

/** The stored size of every hash in `hashes` (one statement); EINVAL for a missing or oversized blob. */
function blobSizes(ctx: Context, nodes: readonly NewNode[]): Map<string, number> {
  const wanted = new Set<string>();
  for (const node of nodes) for (const hash of node.chunks ?? []) if (hash !== "") wanted.add(hash);
  const sizes = new Map<string, number>();
  const all = [...wanted];
  for (let i = 0; i < all.length; i += ROWS_PER_STATEMENT) {
    for (const row of ctx.store.sql.exec<{ hash: string; size: number }>(
      "SELECT hash, size FROM blobs WHERE hash IN (SELECT value FROM json_each(?))",
      JSON.stringify(all.slice(i, i + ROWS_PER_STATEMENT)),
    )) {
      sizes.set(row.hash, row.size);
    }
  }
  for (const hash of all) {
    const size = sizes.get(hash);
    if (size === undefined) throw new FsError("EINVAL", "write", undefined, `missing blob ${hash}`);
    if (size > CHUNK_SIZE) throw new FsError("EINVAL", "write", undefined, `blob ${hash} exceeds a chunk`);
  }
  return sizes;
}

const COLUMNS = NODE_COLUMNS.split(", ") as (keyof NodeRow)[];

const INSERT_NODES = `INSERT INTO nodes (${COLUMNS.join(", ")}) SELECT ${COLUMNS.map(
  (_, i) => `json_extract(value, '$[${i}]')`,
).join(", ")} FROM jsonb_each(?)`;

/** A parent directory of the call: its inode, canonical path, and whether this call creates it. */
interface Parent {
  ino: number;
  path: string;
  created: boolean;
}

/**
 * The directory `dir` names (symlinks followed, as any create does), from the parents already
 * resolved in this call: one lookup for a directory whose parent is known, a full resolution
 * only at a symlink.
 */
function resolveParent(
  ctx: Context,
  parents: Map<string, Parent>,
  dir: string,
  path: string,
  knownDirs: ReadonlyMap<string, number | undefined> | undefined,
): Parent {
  const known = parents.get(dir);
  if (known) return known;
  let found: Parent;
  const ino = knownDirs?.get(dir);
  if (dir === "/") found = { ino: ROOT_INO, path: "/", created: false };
  else if (ino !== undefined) found = { ino, path: dir, created: false };
  else {
    const slash = dir.lastIndexOf("/");
    const above = resolveParent(ctx, parents, slash === 0 ? "/" : dir.slice(0, slash), path, knownDirs);
    const node = ctx.store.lookupNode(above.ino, dir.slice(slash + 1));
    if (node?.type === "symlink") {
      const loc = locate(ctx, dir, "create", true);
      if (!loc.node) throw new FsError("ENOENT", "create", path);
      if (loc.node.type !== "dir") throw new FsError("ENOTDIR", "create", path);
      found = { ino: loc.node.ino, path: loc.path, created: false };
    } else {
      if (!node) throw new FsError("ENOENT", "create", path);
      if (node.type !== "dir") throw new FsError("ENOTDIR", "create", path);
      found = { ino: node.ino, path: childPath(above.path, dir.slice(slash + 1)), created: false };
    }
  }
  parents.set(dir, found);
  return found;
}

/**
 * Creates `nodes` in one operation (one revision): parents first (a node's parent may be a
 * directory earlier in the list). EEXIST when a name is taken, ENOENT/ENOTDIR for a parent that
 * is missing or no directory, ENOSPC past the quota; nothing is created then. Existing parents
 * get a new mtime/ctime (and nlink for new subdirectories), as for any create. `knownDirs`:
 * directories the caller has just found to be real directories (no symlink on the way), by
 * path, with their inodes: taken as they are instead of looked up again.
 */
export function createNodes(
  ctx: Context,
  nodes: readonly NewNode[],
  knownDirs?: ReadonlyMap<string, number | undefined>,
): NodeRow[] {
  const paths = nodes.map(check);
  if (nodes.length === 0) return [];
  return ctx.mutate(() => {
    const sizes = blobSizes(ctx, nodes);
    const parents = new Map<string, Parent>();
    /** Existing parents touched, with the subdirectories they gain. */
    const touched = new Map<number, { path: string; subdirs: number }>();
    const first = Math.max(ctx.store.firstFreeIno(), ROOT_INO + 1);
    const now = ctx.clock();
    const rows: NodeRow[] = [];
    const entries: [number, string, number][] = [];
    const chunks: [number, number, string, number][] = [];
    const changed: string[] = [];
    let allocated = 0;
    nodes.forEach((node, i) => {
      const path = paths[i] as string;
      const slash = path.lastIndexOf("/");
      const parentPath = slash === 0 ? "/" : path.slice(0, slash);
      const name = path.slice(slash + 1);
      const parent = resolveParent(ctx, parents, parentPath, path, knownDirs);
      const ino = first + i;
      const canonical = childPath(parent.path, name);
      const isDir = node.type === "dir";
      if (isDir) parents.set(path, { ino, path: canonical, created: true });
      if (parent.created) {
        if (isDir) (rows[parent.ino - first] as NodeRow).nlink++;
      } else {
        const touch = touched.get(parent.ino) ?? { path: parent.path, subdirs: 0 };
        if (isDir) touch.subdirs++;
        touched.set(parent.ino, touch);
      }
      let size = 0;
      let bytes = 0;
      if (node.type === "file") {
        size = node.size ?? 0;
        (node.chunks ?? []).forEach((hash, idx) => {
          if (hash === "") return;
          const n = sizes.get(hash) ?? 0;
          chunks.push([ino, idx, hash, n]);
          bytes += n;
        });
      } else if (node.type === "symlink") size = byteLength(node.target ?? "");
      allocated += bytes;
      rows.push({
        ino,
        type: node.type,
        mode: node.type === "symlink" ? 0o777 : node.mode,
        uid: node.uid,
        gid: node.gid,
        nlink: isDir ? 2 : 1,
        size,
        rdev: node.type === "char" || node.type === "block" ? (node.rdev ?? 0) : 0,
        allocated: bytes,
        target: node.type === "symlink" ? (node.target ?? "") : null,
        atime_s: node.atime.sec,
        atime_ns: node.atime.nsec,
        mtime_s: node.mtime.sec,
        mtime_ns: node.mtime.nsec,
        ctime_s: now.sec,
        ctime_ns: now.nsec,
      });
      entries.push([parent.ino, name, ino]);
      changed.push(canonical);
    });
    execRows(
      ctx,
      INSERT_NODES,
      rows.map((row) => COLUMNS.map((column) => row[column])),
    );
    const added = execRows(
      ctx,
      "INSERT INTO dirents (parent, name, ino) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM jsonb_each(?) WHERE true ON CONFLICT (parent, name) DO NOTHING RETURNING ino",
      entries,
    );
    if (added.length !== entries.length) {
      const taken = new Set((added as { ino: number }[]).map((row) => row.ino));
      const index = entries.findIndex(([, , ino]) => !taken.has(ino));
      throw new FsError("EEXIST", "create", paths[index]);
    }
    // The next batch of a sync meets these directories again (npm fills them over several): the
    // directory cache, where there is one, knows them without a lookup. A failure below rolls
    // back and mutate() drops the cache.
    rows.forEach((row, i) => {
      const [parent, name] = entries[i] as [number, string, number];
      if (row.type === "dir") ctx.store.rememberDirectory(parent, name, row.ino);
    });
    if (chunks.length > 0) {
      execRows(
        ctx,
        "INSERT INTO chunks (ino, idx, hash, size) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM jsonb_each(?)",
        chunks,
      );
    }
    if (touched.size > 0) {
      ctx.store.sql.exec(
        "UPDATE nodes SET nlink = nlink + json_extract(j.value, '$[1]'), mtime_s = ?, mtime_ns = ?, ctime_s = ?, ctime_ns = ? FROM jsonb_each(?) AS j WHERE nodes.ino = json_extract(j.value, '$[0]')",
        now.sec,
        now.nsec,
        now.sec,
        now.nsec,
        JSON.stringify([...touched].map(([ino, t]) => [ino, t.subdirs])),
      );
      for (const t of touched.values()) changed.push(t.path);
    }
    recordPaths(ctx, changed);
    ctx.charge(allocated, "write", paths[0] as string);
    return rows;
  });
}

/** Blobs per INSERT: four bound parameters each, at most 100 per statement. */
const BLOBS_PER_STATEMENT = 25;

/**
 * Hashes and stores blobs (each at most a chunk), BLOBS_PER_STATEMENT per statement; returns
 * their hashes in order. A blob already stored has its creation time refreshed (GC's window);
 * a placeholder (placeholders.ts) gets its bytes, as Store.putBlob does.
 */
export function storeBlobs(ctx: Context, blobs: readonly Uint8Array[]): string[] {
  const hashes = blobs.map((data) => {
    if (!(data instanceof Uint8Array) || data.length > CHUNK_SIZE)
      throw new FsError("EINVAL", "write", undefined, "a blob must be bytes of at most one chunk");
    return ctx.sha256(data);
  });
  const created = ctx.nowMs();
  ctx.store.sql.transaction(() => {
    for (let i = 0; i < blobs.length; i += BLOBS_PER_STATEMENT) {
      const group = blobs.slice(i, i + BLOBS_PER_STATEMENT);
      const values: SqlValue[] = [];
      group.forEach((data, j) => {
        values.push(hashes[i + j] as string, data.length, created, data);
      });
      ctx.store.sql.exec(
        `INSERT INTO blobs (hash, size, created, data) VALUES ${group.map(() => "(?, ?, ?, ?)").join(", ")} ON CONFLICT (hash) DO UPDATE SET created = excluded.created, data = CASE WHEN length(blobs.data) < blobs.size THEN excluded.data ELSE blobs.data END`,
        ...values,
      );
    }
  });
  return hashes;
}
