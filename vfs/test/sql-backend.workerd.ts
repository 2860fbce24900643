/**
 * The workerd half of the vfs test seam (aliased over ./sql-backend.ts by
 * vfs/vitest.workerd.config.ts): each call runs its body INSIDE a brand-new SQLite-backed
 * Durable Object of the test Worker (./workerd/worker.ts), against `ctx.storage`.
 */
/// <reference types="@cloudflare/vitest-plugin/types" />
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { test } from "vitest";
import { durableObjectSql, type SqlLike } from "../src/sql.ts";
import type { VfsTestEnv } from "./workerd/worker.ts";

/** Which SQL backend this test run uses. */
export const backendName: "node" | "workerd" = "workerd";

/** Runs `fn` inside a new Durable Object (one fresh id per call) with that object's SQL storage. */
export async function withFreshSql<T>(fn: (sql: SqlLike) => T | Promise<T>): Promise<T> {
  const namespace = (env as unknown as VfsTestEnv).VFS_TEST;
  const stub = namespace.get(namespace.newUniqueId());
  return runInDurableObject(stub, (_instance, state) => fn(durableObjectSql(state.storage)));
}

/** Declares a test whose body gets a fresh, empty `SqlLike` database. */
export function sqlTest(name: string, fn: (sql: SqlLike) => void | Promise<void>, timeoutMs?: number): void {
  test(name, () => withFreshSql(fn), timeoutMs);
}
