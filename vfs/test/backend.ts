/**
 * The vfs test seam: `vfsTest(name, (vfs, { sql, reopen }) => ...)` gives each test a fresh
 * Vfs over a fresh database. On node that is in-memory node:sqlite; the "vfs-workerd"
 * project swaps ./sql-backend.ts so the same body runs inside a new Durable Object.
 */
import { createHash } from "node:crypto";
import { test } from "vitest";
import { openVfs, type Vfs } from "../src/index.ts";
import type { SqlLike } from "../src/sql.ts";
import { withFreshSql } from "./sql-backend.ts";

export { describe, expect } from "vitest";
export { backendName, sqlTest, withFreshSql } from "./sql-backend.ts";

/** What a vfs test gets besides its Vfs. */
export interface VfsTestContext {
  /** The database under the Vfs, for white-box assertions. */
  sql: SqlLike;
  /** Opens a new Vfs over the same database, to prove that state persisted. */
  reopen(): Vfs;
}

/** The body of a vfs test. */
export type VfsTestBody = (vfs: Vfs, ctx: VfsTestContext) => void | Promise<void>;

/** Hex sha-256 via node:crypto (available in workerd through nodejs_compat). */
export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Opens a Vfs the way the tests do. */
export function openTestVfs(sql: SqlLike): Vfs {
  return openVfs(sql, { sha256: sha256Hex });
}

/** Declares a test whose body gets a fresh Vfs on a fresh database of the current backend. */
export function vfsTest(name: string, fn: VfsTestBody, timeoutMs?: number): void {
  test(
    name,
    () => withFreshSql((sql) => fn(openTestVfs(sql), { sql, reopen: () => openTestVfs(sql) })),
    timeoutMs,
  );
}
