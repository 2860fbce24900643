/**
 * The local mirror: the computer's vfs in a SQLite file under the state
 * directory, on node:sqlite, with SQL writes grouped (see batched-sqlite.ts).
 * The mount serves it; the sync client reconciles it with the Durable Object.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openVfs, type Vfs } from "@computer/vfs";
import { sha256Hex } from "@computer/vfs/node";
import { type BatchedSql, type BatchPolicy, batchedSqlite } from "./batched-sqlite.ts";

/** File name of the mirror database inside the state directory. */
export const MIRROR_FILE = "mirror.sqlite";

/** An open mirror. */
export interface Mirror {
  readonly file: string;
  readonly vfs: Vfs;
  readonly sql: BatchedSql;
  /** Commits pending writes and closes the database. */
  close(): void;
}

/** Options of openMirror. */
export interface MirrorOptions extends Partial<BatchPolicy> {
  /**
   * Owner of files created through the mount (default root). fuse-native does not
   * tell who called, so every new file gets this owner.
   */
  owner?: { uid: number; gid: number };
}

/** Opens (creating if needed) the mirror in `stateDir`. */
export function openMirror(stateDir: string, options: MirrorOptions = {}): Mirror {
  mkdirSync(stateDir, { recursive: true });
  const file = join(stateDir, MIRROR_FILE);
  const { owner, ...policy } = options;
  const sql = batchedSqlite(new DatabaseSync(file), policy);
  const vfs = openVfs(sql, { sha256: sha256Hex, ...(owner ? { owner } : {}) });
  sql.commit();
  return { file, vfs, sql, close: () => sql.close() };
}
