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

/** Opens (creating if needed) the mirror in `stateDir`. */
export function openMirror(stateDir: string, policy: Partial<BatchPolicy> = {}): Mirror {
  mkdirSync(stateDir, { recursive: true });
  const file = join(stateDir, MIRROR_FILE);
  const sql = batchedSqlite(new DatabaseSync(file), policy);
  const vfs = openVfs(sql, { sha256: sha256Hex });
  sql.commit();
  return { file, vfs, sql, close: () => sql.close() };
}
