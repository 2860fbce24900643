/**
 * The local mirror: the computer's vfs in a SQLite file under the state
 * directory, on node:sqlite, with SQL writes grouped (see batched-sqlite.ts).
 * The mount serves it; the sync client reconciles it with the Durable Object.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { DirectoryCache, openVfs, type Vfs } from "@computer/vfs";
import { sha256Hex } from "@computer/vfs/node";
import { type BatchedSql, type BatchPolicy, batchedSqlite } from "./batched-sqlite.ts";
import { KnownHashes } from "./known-hashes.ts";

/** File name of the mirror database inside the state directory. */
export const MIRROR_FILE = "mirror.sqlite";

/** An open mirror. */
export interface Mirror {
  readonly file: string;
  readonly vfs: Vfs;
  readonly sql: BatchedSql;
  /** Hashes the write-back computed ahead, used by the vfs instead of hashing again. */
  readonly hashes: KnownHashes;
  /** Commits pending writes and closes the database. */
  close(): void;
}

/** Options of openMirror. */
export interface MirrorOptions extends Partial<BatchPolicy> {
  /** Owner of files the vfs creates without one (default root); the mount then gives them the caller's ids. */
  owner?: { uid: number; gid: number };
  /** The vfs's clock (milliseconds; default Date.now), for tests of time windows. */
  now?: () => number;
}

/**
 * Puts the database in incremental auto-vacuum mode (mirror-gc.ts gives pages back). A new
 * file takes the setting at once; one made before has to be rebuilt once (VACUUM).
 */
function useIncrementalVacuum(db: DatabaseSync): void {
  db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  const [row] = db.prepare("PRAGMA auto_vacuum").all() as { auto_vacuum: number }[];
  if (row?.auto_vacuum !== 2) db.exec("VACUUM");
}

/** Opens (creating if needed) the mirror in `stateDir`. */
export function openMirror(stateDir: string, options: MirrorOptions = {}): Mirror {
  mkdirSync(stateDir, { recursive: true });
  const file = join(stateDir, MIRROR_FILE);
  const { owner, now, ...policy } = options;
  const db = new DatabaseSync(file);
  useIncrementalVacuum(db);
  const sql = batchedSqlite(db, policy);
  const hashes = new KnownHashes();
  const sha256 = (data: Uint8Array) => hashes.lookup(data) ?? sha256Hex(data);
  // Only this vfs changes the mirror, and every rollback is told: directories may stay cached by name.
  const directoryCache = new DirectoryCache();
  sql.onRollback(() => directoryCache.clear());
  const vfs = openVfs(sql, { sha256, directoryCache, ...(owner ? { owner } : {}), ...(now ? { now } : {}) });
  sql.commit();
  return { file, vfs, sql, hashes, close: () => sql.close() };
}
