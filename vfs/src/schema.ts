/**
 * The vfs schema as an ordered list of migrations. `migrate()` applies the ones
 * a database lacks, each in its own transaction, and records the version in `meta`.
 */
import type { SqlLike } from "./sql.ts";

const MIGRATIONS: readonly string[][] = [
  [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER)",
    `CREATE TABLE nodes (
      ino INTEGER PRIMARY KEY, type TEXT NOT NULL, mode INTEGER NOT NULL, uid INTEGER NOT NULL,
      gid INTEGER NOT NULL, nlink INTEGER NOT NULL, size INTEGER NOT NULL, rdev INTEGER NOT NULL,
      allocated INTEGER NOT NULL, target TEXT,
      atime_s INTEGER NOT NULL, atime_ns INTEGER NOT NULL, mtime_s INTEGER NOT NULL,
      mtime_ns INTEGER NOT NULL, ctime_s INTEGER NOT NULL, ctime_ns INTEGER NOT NULL)`,
    `CREATE TABLE dirents (parent INTEGER NOT NULL, name TEXT NOT NULL, ino INTEGER NOT NULL,
      PRIMARY KEY (parent, name)) WITHOUT ROWID`,
    "CREATE INDEX dirents_ino ON dirents (ino)",
    `CREATE TABLE chunks (ino INTEGER NOT NULL, idx INTEGER NOT NULL, hash TEXT NOT NULL,
      size INTEGER NOT NULL, PRIMARY KEY (ino, idx)) WITHOUT ROWID`,
    "CREATE INDEX chunks_hash ON chunks (hash)",
    "CREATE TABLE blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, created INTEGER NOT NULL, data BLOB NOT NULL)",
    "CREATE TABLE changes (path TEXT PRIMARY KEY, rev INTEGER NOT NULL, deleted INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE INDEX changes_rev ON changes (rev, path)",
    `CREATE TABLE xattrs (ino INTEGER NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL,
      PRIMARY KEY (ino, name)) WITHOUT ROWID`,
    "CREATE TABLE checkpoints (name TEXT PRIMARY KEY, rev INTEGER NOT NULL, created INTEGER NOT NULL)",
    `CREATE TABLE checkpoint_nodes (cp TEXT NOT NULL, ino INTEGER NOT NULL, type TEXT NOT NULL,
      mode INTEGER NOT NULL, uid INTEGER NOT NULL, gid INTEGER NOT NULL, nlink INTEGER NOT NULL,
      size INTEGER NOT NULL, rdev INTEGER NOT NULL, allocated INTEGER NOT NULL, target TEXT,
      atime_s INTEGER NOT NULL, atime_ns INTEGER NOT NULL, mtime_s INTEGER NOT NULL,
      mtime_ns INTEGER NOT NULL, ctime_s INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
      PRIMARY KEY (cp, ino)) WITHOUT ROWID`,
    `CREATE TABLE checkpoint_dirents (cp TEXT NOT NULL, parent INTEGER NOT NULL, name TEXT NOT NULL,
      ino INTEGER NOT NULL, PRIMARY KEY (cp, parent, name)) WITHOUT ROWID`,
    `CREATE TABLE checkpoint_chunks (cp TEXT NOT NULL, ino INTEGER NOT NULL, idx INTEGER NOT NULL,
      hash TEXT NOT NULL, size INTEGER NOT NULL, PRIMARY KEY (cp, ino, idx)) WITHOUT ROWID`,
    "CREATE INDEX checkpoint_chunks_hash ON checkpoint_chunks (hash)",
    "CREATE TABLE rev_marks (at INTEGER PRIMARY KEY, rev INTEGER NOT NULL)",
    `CREATE TABLE checkpoint_xattrs (cp TEXT NOT NULL, ino INTEGER NOT NULL, name TEXT NOT NULL,
      value BLOB NOT NULL, PRIMARY KEY (cp, ino, name)) WITHOUT ROWID`,
  ],
  // Blobs a peer references without their bytes (placeholders.ts): GC keeps them until released.
  ["CREATE TABLE blob_holds (hash TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID"],
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Every table the vfs owns, for `destroy()`. */
export const TABLES = [
  "nodes",
  "dirents",
  "chunks",
  "blobs",
  "changes",
  "xattrs",
  "checkpoints",
  "checkpoint_nodes",
  "checkpoint_dirents",
  "checkpoint_chunks",
  "checkpoint_xattrs",
  "rev_marks",
  "blob_holds",
  "meta",
] as const;

/** Brings the database up to SCHEMA_VERSION. Returns the version found before. */
export function migrate(sql: SqlLike): number {
  sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER)");
  const row = sql.exec<{ value: number }>("SELECT value FROM meta WHERE key = 'schema'")[0];
  const found = row?.value ?? 0;
  if (found > SCHEMA_VERSION) {
    throw new Error(`vfs schema ${found} is newer than this code (${SCHEMA_VERSION})`);
  }
  for (let version = found; version < SCHEMA_VERSION; version++) {
    sql.transaction(() => {
      for (const statement of MIGRATIONS[version] ?? []) sql.exec(statement);
      sql.exec(
        "INSERT INTO meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        version + 1,
      );
    });
  }
  return found;
}
