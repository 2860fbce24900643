/** Node-only entry point: the node:sqlite adapter and a ready sha-256. */
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import type { VfsOptions } from "./context.ts";
import { nodeSqlite } from "./node-sqlite.ts";
import { openVfs, type Vfs } from "./vfs.ts";

export { type DatabaseSyncLike, nodeSqlite } from "./node-sqlite.ts";

/** Hex sha-256 with node:crypto. */
export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Opens a vfs in a SQLite file (or ":memory:") with node:sqlite. */
export function openNodeVfs(file: string, options: Partial<VfsOptions> = {}): Vfs {
  return openVfs(nodeSqlite(new DatabaseSync(file)), { sha256: sha256Hex, ...options });
}
