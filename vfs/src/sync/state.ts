/**
 * The synced state of one path and its fingerprint: what the two sides of a sync compare.
 * A path is read LITERALLY (a symlink among its parents means the path does not exist), so
 * sync never writes through a link. ctime, atime, nlink and inode numbers are side-local and
 * left out of the fingerprint. A directory's mtime is in it (a `touch -d` on a directory must
 * travel), so a directory whose entries changed is sent along with them (see README).
 */
import { isFsError } from "../errors.ts";
import type { SqlLike } from "../sql.ts";
import { JOINED_COLUMNS, NODE_COLUMNS, type NodeRow, toStat } from "../store.ts";
import type { Stat } from "../types.ts";
import type { Vfs } from "../vfs.ts";
import type { BlobData, SyncChange, Xattr } from "./wire.ts";

/** A path's state as sync moves it: attributes, and content by chunk hash. */
export interface PathState {
  stat: Stat;
  /** Symlinks: the target. */
  target?: string;
  /** Files: sha-256 per CHUNK_SIZE chunk, "" for a hole. */
  chunks?: string[];
  /** Sorted by name; absent when there are none. */
  xattrs?: Xattr[];
}

/** The parent of a normalised absolute path ("/" for a top-level name). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash <= 0 ? "/" : path.slice(0, slash);
}

/** The last name of a path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Depth of a path: "/" is 0, "/a" is 1. */
export function depthOf(path: string): number {
  if (path === "/") return 0;
  let depth = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) depth++;
  return depth;
}

function isMissing(err: unknown): boolean {
  return isFsError(err) && (err.code === "ENOENT" || err.code === "ENOTDIR" || err.code === "ELOOP");
}

/**
 * Chunk hashes of a file inode, read from the vfs `chunks` table. This, `missingBlobHashes` and
 * `inodeXattrs` are where sync reads below the Vfs API (with the echo records and AbsentNames),
 * to answer in one statement what the API answers in one per item.
 */
export function chunkHashes(sql: SqlLike, ino: number): string[] {
  const hashes: string[] = [];
  for (const row of sql.exec<{ idx: number; hash: string }>(
    "SELECT idx, hash FROM chunks WHERE ino = ? ORDER BY idx",
    ino,
  )) {
    while (hashes.length < row.idx) hashes.push("");
    hashes.push(row.hash);
  }
  return hashes;
}

/** Which of `hashes` lack a blob, read from the vfs `blobs` table in one statement. */
export function missingBlobHashes(sql: SqlLike, hashes: readonly string[]): string[] {
  if (hashes.length === 0) return [];
  const present = new Set(
    sql
      .exec<{ hash: string }>(
        "SELECT hash FROM blobs WHERE hash IN (SELECT value FROM json_each(?))",
        JSON.stringify(hashes),
      )
      .map((row) => row.hash),
  );
  return hashes.filter((hash) => !present.has(hash));
}

/** The stored sizes of those of `hashes` that have a blob (one statement). */
export function storedBlobSizes(sql: SqlLike, hashes: readonly string[]): Map<string, number> {
  const sizes = new Map<string, number>();
  if (hashes.length === 0) return sizes;
  for (const row of sql.exec<{ hash: string; size: number }>(
    "SELECT hash, size FROM blobs WHERE hash IN (SELECT value FROM json_each(?))",
    JSON.stringify(hashes),
  )) {
    sizes.set(row.hash, row.size);
  }
  return sizes;
}

/**
 * The blobs of `hashes` in their order (one statement), or undefined when one is not stored
 * (a placeholder, whose bytes are not here, counts as not stored).
 */
export function storedBlobs(sql: SqlLike, hashes: readonly string[]): BlobData[] | undefined {
  if (hashes.length === 0) return [];
  const data = new Map<string, Uint8Array>();
  for (const row of sql.exec<{ hash: string; data: Uint8Array }>(
    "SELECT hash, data FROM blobs WHERE hash IN (SELECT value FROM json_each(?)) AND length(data) = size",
    JSON.stringify(hashes),
  )) {
    data.set(row.hash, row.data);
  }
  const out: BlobData[] = [];
  for (const hash of hashes) {
    const bytes = data.get(hash);
    if (!bytes) return undefined;
    out.push({ hash, data: bytes });
  }
  return out;
}

/** Extended attributes of an inode from the vfs `xattrs` table, sorted by name. */
export function inodeXattrs(sql: SqlLike, ino: number): Xattr[] | undefined {
  const rows = sql.exec<{ name: string; value: Uint8Array }>(
    "SELECT name, value FROM xattrs WHERE ino = ? ORDER BY name",
    ino,
  );
  return rows.length === 0 ? undefined : rows.map((row) => ({ name: row.name, value: row.value }));
}

/** Extended attributes of a path (not following a final symlink), sorted by name. */
export function readXattrs(vfs: Vfs, path: string): Xattr[] | undefined {
  const names = vfs.listxattr(path, false);
  if (names.length === 0) return undefined;
  return [...names].sort().map((name) => ({ name, value: vfs.getxattr(path, name, false) }));
}

/**
 * The state at `path`, or undefined when nothing exists there literally. `parentIsDir`: the
 * parent is known to be a real directory, so the symlink check on it is skipped.
 */
export function readState(vfs: Vfs, sql: SqlLike, path: string, parentIsDir = false): PathState | undefined {
  let stat: Stat;
  try {
    if (path !== "/" && !parentIsDir) {
      const parent = parentOf(path);
      if (vfs.realpath(parent) !== parent) return undefined;
    }
    stat = vfs.lstat(path);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  const state: PathState = { stat };
  if (stat.type === "symlink") state.target = vfs.readlink(path);
  if (stat.type === "file") state.chunks = chunkHashes(sql, stat.ino);
  const xattrs = inodeXattrs(sql, stat.ino);
  if (xattrs) state.xattrs = xattrs;
  return state;
}

/**
 * The state of entry `name` of directory inode `dir` (undefined: none), as readState reads a
 * path whose parent is known: one statement for the node, one each for chunks and xattrs.
 */
export function readChild(sql: SqlLike, dir: number, name: string): PathState | undefined {
  const row = sql.exec<NodeRow>(
    `SELECT ${JOINED_COLUMNS} FROM dirents d JOIN nodes n ON n.ino = d.ino WHERE d.parent = ? AND d.name = ?`,
    dir,
    name,
  )[0];
  if (!row) return undefined;
  const state: PathState = { stat: toStat(row) };
  if (row.type === "symlink") state.target = row.target ?? "";
  if (row.type === "file") state.chunks = chunkHashes(sql, row.ino);
  const xattrs = inodeXattrs(sql, row.ino);
  if (xattrs) state.xattrs = xattrs;
  return state;
}

/** The attributes of inode `ino` (undefined: none). */
export function readInode(sql: SqlLike, ino: number): Stat | undefined {
  const row = sql.exec<NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE ino = ?`, ino)[0];
  return row ? toStat(row) : undefined;
}

/** lstat of many inodes by number, in one statement; a missing one is absent from the answer. */
export function readInodes(sql: SqlLike, inos: readonly number[]): Map<number, Stat> {
  const found = new Map<number, Stat>();
  if (inos.length === 0) return found;
  for (const row of sql.exec<NodeRow>(
    `SELECT ${NODE_COLUMNS} FROM nodes WHERE ino IN (SELECT value FROM json_each(?))`,
    JSON.stringify(inos),
  )) {
    found.set(row.ino, toStat(row));
  }
  return found;
}

/** The state a change carries (undefined for a deletion). */
export function stateOf(change: SyncChange): PathState | undefined {
  if (!change.stat) return undefined;
  const state: PathState = { stat: change.stat };
  if (change.target !== undefined) state.target = change.target;
  if (change.chunks !== undefined) state.chunks = change.chunks;
  if (change.xattrs !== undefined && change.xattrs.length > 0) state.xattrs = change.xattrs;
  return state;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += HEX[byte];
  return out;
}

/** Bytes of a lower-case hex string. */
export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * The canonical text of a state: exactly the fields sync keeps equal on both sides.
 * `withMtime: false` leaves the mtime out (to tell a directory that differs only in it).
 */
export function canonical(state: PathState, withMtime = true): string {
  const s = state.stat;
  const isDir = s.type === "dir";
  return JSON.stringify([
    s.type,
    s.mode,
    s.uid,
    s.gid,
    isDir ? 0 : s.size,
    s.rdev,
    withMtime ? [s.mtime.sec, s.mtime.nsec] : null,
    state.target ?? null,
    state.chunks ?? null,
    (state.xattrs ?? []).map((x) => [x.name, toHex(x.value)]),
  ]);
}

const encoder = new TextEncoder();

/** Fingerprint of a state ("" for absent): hex sha-256 of its canonical text. */
export function fingerprint(state: PathState | undefined, sha256: (data: Uint8Array) => string): string {
  return state ? sha256(encoder.encode(canonical(state))) : "";
}

/**
 * True when two directories differ at most in their mtime, which moves with every entry added
 * or removed: both sides changing entries of one directory is no conflict of the directory.
 */
export function sameDirBesideMtime(a: PathState | undefined, b: PathState | undefined): boolean {
  return a?.stat.type === "dir" && b?.stat.type === "dir" && canonical(a, false) === canonical(b, false);
}

/** True when two states hold the same content (type, size, chunks, target, device), whatever their attributes. */
export function sameContent(a: PathState, b: PathState): boolean {
  if (a.stat.type !== b.stat.type || a.stat.rdev !== b.stat.rdev) return false;
  if (a.stat.type === "dir") return true;
  if (a.stat.size !== b.stat.size || (a.target ?? null) !== (b.target ?? null)) return false;
  const ca = a.chunks ?? [];
  const cb = b.chunks ?? [];
  return ca.length === cb.length && ca.every((hash, i) => hash === cb[i]);
}

/** Bytes of content a state references (file size), for batch sizing. */
export function contentBytes(state: PathState | undefined): number {
  return state?.stat.type === "file" ? state.stat.size : 0;
}
