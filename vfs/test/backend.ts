/**
 * The vfs test seam: `vfsTest(name, (vfs, { sql, reopen, clock }) => ...)` gives each test a
 * fresh Vfs over a fresh database and a manual clock. On node that is in-memory node:sqlite;
 * the "vfs-workerd" project swaps ./sql-backend.ts so the same body runs inside a new Durable Object.
 */
import { createHash } from "node:crypto";
import { test } from "vitest";
import { openVfs, type Vfs } from "../src/index.ts";
import type { SqlLike } from "../src/sql.ts";
import { withFreshSql } from "./sql-backend.ts";

export { describe, expect } from "vitest";
export { backendName, sqlTest, withFreshSql } from "./sql-backend.ts";

/** 2026-01-01T00:00:00Z: where every test clock starts unless a test asks otherwise. */
export const TEST_EPOCH_MS = Date.UTC(2026, 0, 1);

/** A clock that moves only when told to, so times and GC windows are deterministic. */
export class TestClock {
  private ms: number;

  constructor(startMs: number) {
    this.ms = startMs;
  }

  /** Milliseconds since the epoch, as `VfsOptions.now` wants. */
  now(): number {
    return this.ms;
  }

  set(ms: number): void {
    this.ms = ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}

/** What a vfs test gets besides its Vfs. */
export interface VfsTestContext {
  /** The database under the Vfs, for white-box assertions. */
  sql: SqlLike;
  /** Opens a new Vfs over the same database (same clock), to prove that state persisted. */
  reopen(): Vfs;
  /** The Vfs's clock. */
  clock: TestClock;
}

/** Per-test options of `vfsTest`. */
export interface VfsTestOptions {
  timeoutMs?: number;
  /** Start of the test clock in ms since the epoch (default TEST_EPOCH_MS). */
  startMs?: number;
}

/** The body of a vfs test. */
export type VfsTestBody = (vfs: Vfs, ctx: VfsTestContext) => void | Promise<void>;

/** Hex sha-256 via node:crypto (available in workerd through nodejs_compat). */
export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Opens a Vfs the way the tests do. */
export function openTestVfs(sql: SqlLike, clock?: TestClock): Vfs {
  return openVfs(sql, clock ? { sha256: sha256Hex, now: () => clock.now() } : { sha256: sha256Hex });
}

/** Declares a test whose body gets a fresh Vfs on a fresh database of the current backend. */
export function vfsTest(name: string, fn: VfsTestBody, options?: number | VfsTestOptions): void {
  const opts = typeof options === "number" ? { timeoutMs: options } : (options ?? {});
  test(
    name,
    () =>
      withFreshSql((sql) => {
        const clock = new TestClock(opts.startMs ?? TEST_EPOCH_MS);
        return fn(openTestVfs(sql, clock), { sql, clock, reopen: () => openTestVfs(sql, clock) });
      }),
    opts.timeoutMs,
  );
}
