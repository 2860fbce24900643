/**
 * Row-level access to the vfs tables: inodes, directory entries, chunks, blobs,
 * the revision counter and change records. Every higher layer goes through here,
 * so each SQL statement lives in one place.
 */
import type { DirectoryCache } from "./dir-cache.ts";
import { ROWS_PER_STATEMENT } from "./json-rows.ts";
import type { SqlLike } from "./sql.ts";
import type { FileType, Stat, Timespec } from "./types.ts";
import type { StoredUsage, UsageCache } from "./usage-cache.ts";

/** One row of `nodes`. */
export interface NodeRow {
  ino: number;
  type: FileType;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  size: number;
  rdev: number;
  allocated: number;
  target: string | null;
  atime_s: number;
  atime_ns: number;
  mtime_s: number;
  mtime_ns: number;
  ctime_s: number;
  ctime_ns: number;
}

export interface ChunkRow {
  idx: number;
  hash: string;
  size: number;
}

/** Change records written with bound values in one statement; more go as JSON rows. */
const RECORDS_PER_STATEMENT = 4;

export const NODE_COLUMNS =
  "ino, type, mode, uid, gid, nlink, size, rdev, allocated, target, atime_s, atime_ns, mtime_s, mtime_ns, ctime_s, ctime_ns";

/** The node columns of a `dirents d JOIN nodes n` query, named as in NodeRow. */
export const JOINED_COLUMNS = NODE_COLUMNS.split(", ")
  .map((c) => `n.${c} AS ${c}`)
  .join(", ");

/** Turns a row into the public Stat. */
export function toStat(row: NodeRow): Stat {
  return {
    ino: row.ino,
    type: row.type,
    mode: row.mode,
    uid: row.uid,
    gid: row.gid,
    nlink: row.nlink,
    size: row.size,
    rdev: row.rdev,
    allocated: row.allocated,
    atime: { sec: row.atime_s, nsec: row.atime_ns },
    mtime: { sec: row.mtime_s, nsec: row.mtime_ns },
    ctime: { sec: row.ctime_s, nsec: row.ctime_ns },
  };
}

/** Table access for one database. Stateless apart from the SQL handle. */
export class Store {
  readonly sql: SqlLike;
  /** Directories by name (dir-cache.ts), where the database's owner keeps one. */
  private readonly dirs: DirectoryCache | undefined;
  /** The used bytes and the quota (usage-cache.ts), where the database's owner keeps them. */
  private readonly used: UsageCache | undefined;
  /** Numbers up to here are handed out ahead of their nodes (reserveInodes); 0: none. */
  private inoFloor = 0;

  constructor(sql: SqlLike, dirs?: DirectoryCache, used?: UsageCache) {
    this.sql = sql;
    this.dirs = dirs;
    this.used = used;
  }

  /** Forgets what is cached in memory (rows changed behind the caches' backs, or a rollback). */
  forgetCached(): void {
    this.dirs?.clear();
    this.used?.clear();
  }

  node(ino: number): NodeRow | undefined {
    return this.sql.exec<NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE ino = ?`, ino)[0];
  }

  /** The inode a directory entry names, in one query (the hot path of every lookup). */
  lookupNode(parent: number, name: string): NodeRow | undefined {
    return this.sql.exec<NodeRow>(
      `SELECT ${JOINED_COLUMNS} FROM dirents d JOIN nodes n ON n.ino = d.ino WHERE d.parent = ? AND d.name = ?`,
      parent,
      name,
    )[0];
  }

  /**
   * What a path walk needs of an entry it passes through (inode, type, a symlink's target):
   * a third of lookupNode's columns, and about half its cost per step.
   */
  lookupStep(parent: number, name: string): Pick<NodeRow, "ino" | "type" | "target"> | undefined {
    const known = this.dirs?.step(parent, name);
    if (known !== undefined) return { ino: known, type: "dir", target: null };
    const row = this.sql.exec<Pick<NodeRow, "ino" | "type" | "target">>(
      "SELECT n.ino AS ino, n.type AS type, n.target AS target FROM dirents d JOIN nodes n ON n.ino = d.ino WHERE d.parent = ? AND d.name = ?",
      parent,
      name,
    )[0];
    if (row?.type === "dir") this.dirs?.remember(parent, name, row.ino);
    return row;
  }

  /** Entry (parent, name) now names directory `ino` (just created in this operation). */
  rememberDirectory(parent: number, name: string, ino: number): void {
    this.dirs?.remember(parent, name, ino);
  }

  /** The (parent, name) of directory `ino` (directories have one name), or undefined. */
  directoryName(ino: number): { parent: number; name: string } | undefined {
    const known = this.dirs?.nameOf(ino);
    if (known) return known;
    const entry = this.namesOf(ino)[0];
    if (entry) this.dirs?.remember(entry.parent, entry.name, ino);
    return entry;
  }

  lookup(parent: number, name: string): number | undefined {
    return this.sql.exec<{ ino: number }>(
      "SELECT ino FROM dirents WHERE parent = ? AND name = ?",
      parent,
      name,
    )[0]?.ino;
  }

  /**
   * The lowest inode number a new node may take: past every node and every number handed out
   * ahead (reserveInodes). Without reservations SQLite's own choice (the largest plus one).
   */
  firstFreeIno(): number {
    const [row] = this.sql.exec<{ max: number | null }>("SELECT MAX(ino) AS max FROM nodes");
    return Math.max((row?.max ?? 0) + 1, this.inoFloor);
  }

  /**
   * Hands out `count` inode numbers no node has and no node created later will take: the FUSE
   * loop numbers the files it creates with them before the vfs has their rows. Kept in this
   * store's memory only: a number never used leaves a gap, which costs nothing.
   */
  reserveInodes(count: number): number {
    const first = this.firstFreeIno();
    this.inoFloor = first + count;
    return first;
  }

  insertNode(row: Omit<NodeRow, "ino"> & { ino?: number }): number {
    const inserted = this.sql.exec<{ ino: number }>(
      `INSERT INTO nodes (${NODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ino`,
      row.ino ?? (this.inoFloor > 0 ? this.firstFreeIno() : null),
      row.type,
      row.mode,
      row.uid,
      row.gid,
      row.nlink,
      row.size,
      row.rdev,
      row.allocated,
      row.target,
      row.atime_s,
      row.atime_ns,
      row.mtime_s,
      row.mtime_ns,
      row.ctime_s,
      row.ctime_ns,
    )[0];
    if (!inserted) throw new Error("insert into nodes returned no row");
    return inserted.ino;
  }

  /** Updates the given columns of one inode. */
  updateNode(ino: number, fields: Partial<Omit<NodeRow, "ino" | "type">>): void {
    const keys = Object.keys(fields) as (keyof typeof fields)[];
    if (keys.length === 0) return;
    const assignments = keys.map((k) => `${k} = ?`).join(", ");
    const values = keys.map((k) => fields[k] ?? null);
    this.sql.exec(`UPDATE nodes SET ${assignments} WHERE ino = ?`, ...values, ino);
  }

  /** Sets ctime (and optionally mtime) to `now`. */
  touch(ino: number, now: Timespec, mtime: boolean): void {
    if (mtime) {
      this.sql.exec(
        "UPDATE nodes SET mtime_s = ?, mtime_ns = ?, ctime_s = ?, ctime_ns = ? WHERE ino = ?",
        now.sec,
        now.nsec,
        now.sec,
        now.nsec,
        ino,
      );
    } else {
      this.sql.exec("UPDATE nodes SET ctime_s = ?, ctime_ns = ? WHERE ino = ?", now.sec, now.nsec, ino);
    }
  }

  deleteNode(ino: number): void {
    this.sql.exec("DELETE FROM chunks WHERE ino = ?", ino);
    this.sql.exec("DELETE FROM xattrs WHERE ino = ?", ino);
    this.sql.exec("DELETE FROM nodes WHERE ino = ?", ino);
  }

  addEntry(parent: number, name: string, ino: number): void {
    this.sql.exec("INSERT INTO dirents (parent, name, ino) VALUES (?, ?, ?)", parent, name, ino);
  }

  removeEntry(parent: number, name: string): void {
    // A directory leaves (or moves): paths below it name other inodes or none now.
    if (this.dirs?.has(parent, name)) this.dirs.clear();
    this.sql.exec("DELETE FROM dirents WHERE parent = ? AND name = ?", parent, name);
  }

  /** Entries of a directory sorted by name, after `after`, at most `limit`. */
  entries(parent: number, after: string | undefined, limit: number): { name: string; ino: number }[] {
    return this.sql.exec<{ name: string; ino: number }>(
      "SELECT name, ino FROM dirents WHERE parent = ? AND name > ? ORDER BY name LIMIT ?",
      parent,
      after ?? "",
      limit,
    );
  }

  /**
   * Entries joined with their inodes, for readdir; all of them without a `limit`. A bound LIMIT
   * makes SQLite prepare the statement again at every run (it plans with the value), which cost
   * more than the read of a small directory itself, so a whole listing binds none.
   */
  entriesWithNodes(
    parent: number,
    after: string | undefined,
    limit?: number,
  ): (NodeRow & { name: string })[] {
    const query = `SELECT d.name AS name, ${JOINED_COLUMNS}
       FROM dirents d JOIN nodes n ON n.ino = d.ino WHERE d.parent = ? AND d.name > ? ORDER BY d.name`;
    if (limit === undefined) return this.sql.exec<NodeRow & { name: string }>(query, parent, after ?? "");
    return this.sql.exec<NodeRow & { name: string }>(`${query} LIMIT ?`, parent, after ?? "", limit);
  }

  hasEntries(parent: number): boolean {
    return this.sql.exec("SELECT 1 FROM dirents WHERE parent = ? LIMIT 1", parent).length > 0;
  }

  /** The (parent, name) pairs that name an inode (several for hard links). */
  namesOf(ino: number): { parent: number; name: string }[] {
    return this.sql.exec<{ parent: number; name: string }>(
      "SELECT parent, name FROM dirents WHERE ino = ?",
      ino,
    );
  }

  chunks(ino: number, fromIdx = 0, toIdx = Number.MAX_SAFE_INTEGER): ChunkRow[] {
    return this.sql.exec<ChunkRow>(
      "SELECT idx, hash, size FROM chunks WHERE ino = ? AND idx >= ? AND idx <= ? ORDER BY idx",
      ino,
      fromIdx,
      toIdx,
    );
  }

  setChunk(ino: number, idx: number, hash: string, size: number): void {
    this.sql.exec(
      "INSERT INTO chunks (ino, idx, hash, size) VALUES (?, ?, ?, ?) ON CONFLICT (ino, idx) DO UPDATE SET hash = excluded.hash, size = excluded.size",
      ino,
      idx,
      hash,
      size,
    );
  }

  deleteChunk(ino: number, idx: number): void {
    this.sql.exec("DELETE FROM chunks WHERE ino = ? AND idx = ?", ino, idx);
  }

  deleteChunksFrom(ino: number, fromIdx: number): void {
    this.sql.exec("DELETE FROM chunks WHERE ino = ? AND idx >= ?", ino, fromIdx);
  }

  /** The bytes stored under `hash`; undefined when there are none (also for a placeholder). */
  blob(hash: string): Uint8Array | undefined {
    return this.sql.exec<{ data: Uint8Array }>(
      "SELECT data FROM blobs WHERE hash = ? AND length(data) = size",
      hash,
    )[0]?.data;
  }

  /** Bytes of the blob stored under `hash`, or undefined when there is none. */
  blobSize(hash: string): number | undefined {
    return this.sql.exec<{ size: number }>("SELECT size FROM blobs WHERE hash = ?", hash)[0]?.size;
  }

  hasBlob(hash: string): boolean {
    return this.sql.exec("SELECT 1 FROM blobs WHERE hash = ?", hash).length > 0;
  }

  /**
   * Stores a blob unless present (a placeholder gets its bytes); refreshes its creation time so
   * GC's safety window restarts.
   */
  putBlob(hash: string, data: Uint8Array, nowMs: number): void {
    this.sql.exec(
      `INSERT INTO blobs (hash, size, created, data) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO UPDATE
         SET created = excluded.created,
             data = CASE WHEN length(blobs.data) < blobs.size THEN excluded.data ELSE blobs.data END`,
      hash,
      data.length,
      nowMs,
      data,
    );
  }

  metaValue(key: string): number | undefined {
    const value = this.sql.exec<{ value: number | null }>("SELECT value FROM meta WHERE key = ?", key)[0]
      ?.value;
    return value ?? undefined;
  }

  setMeta(key: string, value: number | null): void {
    if (key === "used" || key === "quota") this.used?.clear();
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  /** Used bytes and the quota (undefined: none) in one statement. */
  usage(): StoredUsage {
    const cached = this.used?.get();
    if (cached) return cached;
    const rows = this.sql.exec<{ key: string; value: number | null }>(
      "SELECT key, value FROM meta WHERE key IN ('used', 'quota')",
    );
    let used = 0;
    let quota: number | undefined;
    for (const row of rows) {
      if (row.key === "used") used = row.value ?? 0;
      else quota = row.value ?? undefined;
    }
    this.used?.set({ used, quota });
    return { used, quota };
  }

  /** Adds `delta` to the used bytes; answers the new total and the quota (undefined: none), in one statement. */
  addUsed(delta: number): StoredUsage {
    const row = this.sql.exec<{ value: number; quota: number | null }>(
      "INSERT INTO meta (key, value) VALUES ('used', ?) ON CONFLICT (key) DO UPDATE SET value = value + excluded.value RETURNING value, (SELECT value FROM meta WHERE key = 'quota') AS quota",
      delta,
    )[0];
    const usage = { used: row?.value ?? delta, quota: row?.quota ?? undefined };
    this.used?.set(usage);
    return usage;
  }

  /** Adds `delta` to a counter in meta and returns the new value. */
  addMeta(key: string, delta: number): number {
    const row = this.sql.exec<{ value: number }>(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = value + excluded.value RETURNING value",
      key,
      delta,
    )[0];
    return row?.value ?? delta;
  }

  /**
   * Records that each path changed (true: was deleted) at `rev`, one row per path, latest wins:
   * up to RECORDS_PER_STATEMENT in one statement of bound values, more as JSON rows.
   */
  recordChanges(changes: readonly [string, boolean][], rev: number): void {
    const upsert = "ON CONFLICT (path) DO UPDATE SET rev = excluded.rev, deleted = excluded.deleted";
    if (changes.length > RECORDS_PER_STATEMENT) {
      const rows = changes.map(([path, deleted]) => [path, deleted ? 1 : 0]);
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT)
        this.sql.exec(
          `INSERT INTO changes (path, rev, deleted) SELECT json_extract(value, '$[0]'), ?, json_extract(value, '$[1]') FROM jsonb_each(?) WHERE true ${upsert}`,
          rev,
          JSON.stringify(rows.slice(i, i + ROWS_PER_STATEMENT)),
        );
      return;
    }
    const values = changes.map(() => "(?, ?, ?)").join(", ");
    const bindings = changes.flatMap(([path, deleted]) => [path, rev, deleted ? 1 : 0]);
    this.sql.exec(`INSERT INTO changes (path, rev, deleted) VALUES ${values} ${upsert}`, ...bindings);
  }
}
