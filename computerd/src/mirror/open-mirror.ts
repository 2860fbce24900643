/**
 * The local mirror: the computer's vfs in a SQLite file under the state
 * directory, on node:sqlite, with SQL writes grouped (see batched-sqlite.ts).
 * The mount serves it; the sync client reconciles it with the Durable Object.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { DirectoryCache, openVfs, UsageCache, type Vfs } from "@computer/vfs";
import { sha256Hex } from "@computer/vfs/node";
import { type BatchedSql, type BatchPolicy, batchedSqlite } from "./batched-sqlite.ts";
import { KnownHashes } from "./known-hashes.ts";
import { RecentBlobs } from "./recent-blobs.ts";
import { checkpointInBackground, type WalCheckpoints } from "./wal-checkpoints.ts";

/** File name of the mirror database inside the state directory. */
export const MIRROR_FILE = "mirror.sqlite";

/** An open mirror. */
export interface Mirror {
  readonly file: string;
  readonly vfs: Vfs;
  readonly sql: BatchedSql;
  /** Hashes the write-back computed ahead, used by the vfs instead of hashing again. */
  readonly hashes: KnownHashes;
  /** Pages stored lately, by hash: the upload sends them from memory (recent-blobs.ts). */
  readonly recent: RecentBlobs;
  /** The WAL's checkpoints on a thread of their own (wal-checkpoints.ts), unless switched off. */
  readonly checkpoints?: WalCheckpoints;
  /** Commits pending writes and closes the database. */
  close(): void;
}

/** Options of openMirror. */
export interface MirrorOptions extends Partial<BatchPolicy> {
  /** Owner of files the vfs creates without one (default root); the mount then gives them the caller's ids. */
  owner?: { uid: number; gid: number };
  /** The vfs's clock (milliseconds; default Date.now), for tests of time windows. */
  now?: () => number;
  /** Checkpoint the WAL on a worker thread ahead of the commits (wal-checkpoints.ts; default on). */
  backgroundCheckpoints?: boolean;
}

/**
 * A new mirror's SQLite page: 16 KiB instead of SQLite's default 4 KiB. A 1 MiB chunk is 64 pages
 * instead of 256, and each page is a write to the WAL and another at the checkpoint, all on
 * computerd's JS thread: for a command writing 100 MiB that thread's CPU went from ~670 to ~490 ms.
 * Larger pages store chunks cheaper still but make every small change dearer (each dirty page is
 * copied and checksummed whole into the WAL): 64 KiB cost small files ~80% more CPU, 16 KiB ~10%
 * (docs/BENCH.md, "The mirror's page size"). A mirror made before keeps its page size: WAL mode
 * fixes it once the file exists.
 */
export const MIRROR_PAGE_BYTES = 16384;

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
  const { owner, now, backgroundCheckpoints = true, ...policy } = options;
  const db = new DatabaseSync(file);
  // Before anything writes the file (it is made at the first write); a no-op on one that exists.
  db.exec(`PRAGMA page_size = ${MIRROR_PAGE_BYTES}`);
  useIncrementalVacuum(db);
  const sql = batchedSqlite(db, policy);
  const hashes = new KnownHashes();
  const sha256 = (data: Uint8Array) => hashes.lookup(data) ?? sha256Hex(data);
  // Only this vfs changes the mirror, and every rollback is told: directories may stay cached by
  // name, and the used bytes and quota (the mount asks before every write it buffers) in memory.
  const directoryCache = new DirectoryCache();
  const usageCache = new UsageCache();
  sql.onRollback(() => {
    directoryCache.clear();
    usageCache.clear();
  });
  const vfs = openVfs(sql, {
    sha256,
    directoryCache,
    usageCache,
    ...(owner ? { owner } : {}),
    ...(now ? { now } : {}),
  });
  sql.commit();
  const checkpoints = backgroundCheckpoints
    ? checkpointInBackground(file, sql, policy.synchronous)
    : undefined;
  const close = () => {
    checkpoints?.close();
    sql.close();
  };
  const recent = new RecentBlobs();
  return { file, vfs, sql, hashes, recent, ...(checkpoints ? { checkpoints } : {}), close };
}
