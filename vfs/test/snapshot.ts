/**
 * White-box snapshots of a vfs database and the assertion built on them: a failing
 * call throws an FsError with the expected code and leaves every table as it was.
 */
import { expect } from "vitest";
import { type FsErrorCode, isFsError } from "../src/index.ts";
import type { SqlLike } from "../src/sql.ts";

/** Tables and their sort keys; `blobs` leaves out the data column (its hash names it). */
const TABLES: Record<string, string> = {
  nodes: "SELECT * FROM nodes ORDER BY ino",
  dirents: "SELECT * FROM dirents ORDER BY parent, name",
  chunks: "SELECT * FROM chunks ORDER BY ino, idx",
  xattrs: "SELECT * FROM xattrs ORDER BY ino, name",
  changes: "SELECT * FROM changes ORDER BY path",
  meta: "SELECT * FROM meta ORDER BY key",
  checkpoints: "SELECT * FROM checkpoints ORDER BY name",
  checkpoint_nodes: "SELECT * FROM checkpoint_nodes ORDER BY cp, ino",
  checkpoint_dirents: "SELECT * FROM checkpoint_dirents ORDER BY cp, parent, name",
  checkpoint_chunks: "SELECT * FROM checkpoint_chunks ORDER BY cp, ino, idx",
  checkpoint_xattrs: "SELECT * FROM checkpoint_xattrs ORDER BY cp, ino, name",
  blobs: "SELECT hash, size, created FROM blobs ORDER BY hash",
};

/** Every row of every vfs table. With `blobs: false` the blob store is left out (streams store ahead). */
export function snapshot(sql: SqlLike, options: { blobs?: boolean } = {}): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [table, query] of Object.entries(TABLES)) {
    if (table === "blobs" && options.blobs === false) continue;
    out[table] = sql.exec(query);
  }
  return out;
}

/** The FsError code `fn` throws; fails the test if it returns or throws something else. */
export function errorCode(fn: () => unknown): FsErrorCode {
  try {
    fn();
  } catch (err) {
    if (isFsError(err)) return err.code;
    throw err;
  }
  throw new Error("expected an FsError, but the call succeeded");
}

/** Asserts that `fn` fails with `code` and leaves the database exactly as it was. */
export function expectFails(sql: SqlLike, code: FsErrorCode, fn: () => unknown): void {
  const before = snapshot(sql);
  expect(errorCode(fn)).toBe(code);
  expect(snapshot(sql)).toEqual(before);
}

/** Async `expectFails`; blobs may be stored ahead by a stream, so they are compared only if `blobs`. */
export async function expectFailsAsync(
  sql: SqlLike,
  code: FsErrorCode,
  fn: () => Promise<unknown>,
  options: { blobs?: boolean } = {},
): Promise<void> {
  const before = snapshot(sql, options);
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  if (!isFsError(caught)) throw caught ?? new Error("expected an FsError, but the call succeeded");
  expect(caught.code).toBe(code);
  expect(snapshot(sql, options)).toEqual(before);
}
