/**
 * Test support for sync: a DO side and a mirror side over any two SqlLike
 * databases, linked both ways through Loopback transports, plus tree snapshots to compare
 * the two sides and list every file content present.
 */
import type { DirectoryCache } from "../src/dir-cache.ts";
import type { SqlLike, SqlValue } from "../src/sql.ts";
import { SyncEndpoint } from "../src/sync/endpoint.ts";
import { Loopback } from "../src/sync/loopback.ts";
import { batchHashes } from "../src/sync/receive.ts";
import { type DrainOptions, type DrainReport, SyncLink } from "../src/sync/session.ts";
import { toHex } from "../src/sync/state.ts";
import type { Side } from "../src/sync/wire.ts";
import type { FileType } from "../src/types.ts";
import { openVfs, type Vfs } from "../src/vfs.ts";
import { richTree as fixtureTree } from "./fixtures.ts";

/** One side: its vfs, database and endpoint. */
export interface SyncSide {
  vfs: Vfs;
  sql: SqlLike;
  endpoint: SyncEndpoint;
}

/** Both sides and both directions of a link. */
export interface SyncPair {
  do: SyncSide;
  mirror: SyncSide;
  /** DO → mirror, through `toMirror`. */
  push: SyncLink;
  /** mirror → DO, through `toDo`. */
  upload: SyncLink;
  toMirror: Loopback;
  toDo: Loopback;
}

/**
 * Opens a vfs and its sync endpoint over `sql` (a fixed clock keeps runs reproducible). With
 * `directoryCache`, the vfs keeps directories by name as the DO and the mirror do, and a
 * transaction that throws drops them (worker/src/computer/context.ts does the same).
 */
export function openSide(
  sql: SqlLike,
  side: Side,
  sha256: (data: Uint8Array) => string,
  now?: () => number,
  directoryCache?: DirectoryCache,
): SyncSide {
  let db = sql;
  if (directoryCache) {
    db = {
      exec<T>(query: string, ...bindings: SqlValue[]): T[] {
        return sql.exec<T>(query, ...bindings);
      },
      transaction<T>(fn: () => T): T {
        try {
          return sql.transaction(fn);
        } catch (err) {
          directoryCache.clear();
          throw err;
        }
      },
    };
  }
  const vfs = openVfs(db, { sha256, ...(now ? { now } : {}), ...(directoryCache ? { directoryCache } : {}) });
  return { vfs, sql: db, endpoint: new SyncEndpoint(vfs, db, { side, sha256 }) };
}

/** Links two sides both ways through loopbacks. */
export function linkPair(doSide: SyncSide, mirror: SyncSide): SyncPair {
  const toMirror = new Loopback(mirror.endpoint);
  const toDo = new Loopback(doSide.endpoint);
  return {
    do: doSide,
    mirror,
    push: new SyncLink(doSide.endpoint, toMirror),
    upload: new SyncLink(mirror.endpoint, toDo),
    toMirror,
    toDo,
  };
}

/** Pushes and uploads until neither side sends anything (at most `rounds` rounds). */
export async function settle(pair: SyncPair, options: DrainOptions = {}, rounds = 8): Promise<DrainReport[]> {
  const reports: DrainReport[] = [];
  for (let i = 0; i < rounds; i++) {
    const pushed = await pair.push.drain(options);
    const uploaded = await pair.upload.drain(options);
    reports.push(pushed, uploaded);
    if (pushed.changes === 0 && uploaded.changes === 0) return reports;
  }
  throw new Error(`sync did not settle in ${rounds} rounds`);
}

/** What a snapshot records of one path. */
export interface NodeSnapshot {
  type: FileType;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  rdev: number;
  /** Link count (directories: 2 + subdirectories). */
  nlink: number;
  /** Hard-linked non-directories: the other paths naming the same inode, sorted. */
  links?: string[];
  /** Files: digest of the content; symlinks: the target. */
  content?: string;
  /** mtime as "sec.nsec" (directories too: sync carries their times). */
  mtime: string;
  xattrs: string[];
}

const decoder = new TextDecoder();

/**
 * Every path of a tree (literally, not following symlinks) with its synced attributes and
 * content (file contents as `digest` of their bytes), its link count and the other names of a
 * hard-linked inode: two equal snapshots have the same names sharing the same inodes.
 */
export function snapshot(vfs: Vfs, digest: (data: Uint8Array) => string): Record<string, NodeSnapshot> {
  const out: Record<string, NodeSnapshot> = {};
  const visit = (path: string): void => {
    const st = vfs.lstat(path);
    const node: NodeSnapshot = {
      type: st.type,
      mode: st.mode,
      uid: st.uid,
      gid: st.gid,
      size: st.type === "dir" ? 0 : st.size,
      rdev: st.rdev,
      nlink: st.nlink,
      mtime: `${st.mtime.sec}.${st.mtime.nsec}`,
      xattrs: vfs
        .listxattr(path, false)
        .sort()
        .map((name) => `${name}=${toHex(vfs.getxattr(path, name, false))}`),
    };
    if (st.type === "file") node.content = digest(vfs.readFile(path));
    if (st.type === "symlink") node.content = vfs.readlink(path);
    if (st.type !== "dir" && st.nlink > 1) node.links = vfs.namesOf(st.ino).filter((name) => name !== path);
    out[path] = node;
    if (st.type === "dir") {
      for (const entry of vfs.list(path)) visit(path === "/" ? `/${entry.name}` : `${path}/${entry.name}`);
    }
  };
  visit("/");
  return out;
}

/** Every file content present in the tree, decoded as UTF-8 (for "nothing lost" checks). */
export function contents(vfs: Vfs): Set<string> {
  const found = new Set<string>();
  const visit = (dir: string): void => {
    for (const entry of vfs.list(dir)) {
      const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
      if (entry.type === "file") found.add(decoder.decode(vfs.readFile(path)));
      if (entry.type === "dir") visit(path);
    }
  };
  visit("/");
  return found;
}

/** Bytes that differ in every chunk (a linear congruential sequence from `seed`). */
export function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed || 1;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Writes a tree with every kind of node and attribute sync must carry: fixtures.ts's, and an empty file and a directory's xattr. */
export function richTree(vfs: Vfs): void {
  fixtureTree(vfs);
  vfs.writeFile("/empty", "");
  vfs.setxattr("/src", "user.dir", new TextEncoder().encode("d"));
}

/**
 * Crossing batches: both sides build a batch before either applies the other's (what two
 * links draining at once can do); then each is applied and acknowledged.
 */
export async function crossing(pair: SyncPair): Promise<void> {
  await pair.push.connect();
  await pair.upload.connect();
  const up = pair.mirror.endpoint.nextBatch();
  const down = pair.do.endpoint.nextBatch();
  if (up) up.batch.blobs = pair.mirror.endpoint.getBlobs(batchHashes(up.batch.changes));
  if (down) down.batch.blobs = pair.do.endpoint.getBlobs(batchHashes(down.batch.changes));
  if (up) pair.mirror.endpoint.acknowledge(up.batch, pair.do.endpoint.applyBatch(structuredClone(up.batch)));
  if (down)
    pair.do.endpoint.acknowledge(down.batch, pair.mirror.endpoint.applyBatch(structuredClone(down.batch)));
}
