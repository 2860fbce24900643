/**
 * The node half of the vfs test seam: a fresh in-memory node:sqlite database per call.
 * The "vfs-workerd" vitest project aliases this file to ./sql-backend.workerd.ts, so the
 * same test files run against a real Durable Object's SQLite there.
 */
import { DatabaseSync } from "node:sqlite";
import { test } from "vitest";
import { nodeSqlite } from "../src/node-sqlite.ts";
import type { SqlLike } from "../src/sql.ts";

/** Which SQL backend this test run uses. */
export const backendName: "node" | "workerd" = "node";

/** Runs `fn` with a fresh, empty database that is closed afterwards. */
export async function withFreshSql<T>(fn: (sql: SqlLike) => T | Promise<T>): Promise<T> {
  const db = new DatabaseSync(":memory:");
  try {
    return await fn(nodeSqlite(db));
  } finally {
    db.close();
  }
}

/** Declares a test whose body gets a fresh, empty `SqlLike` database. */
export function sqlTest(name: string, fn: (sql: SqlLike) => void | Promise<void>, timeoutMs?: number): void {
  test(name, () => withFreshSql(fn), timeoutMs);
}
