/**
 * Smoke test of the test seam itself: the SqlLike each backend hands out (node:sqlite
 * here, a fresh Durable Object under "vfs-workerd") round-trips values and rolls back
 * a transaction whose body throws.
 */
import { expect } from "vitest";
import type { SqlLike } from "../src/sql.ts";
import { backendName, sqlTest, vfsTest } from "./backend.ts";

function createTable(sql: SqlLike): void {
  sql.exec("CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER, v BLOB)");
}

function keys(sql: SqlLike): string[] {
  return sql.exec<{ k: string }>("SELECT k FROM t ORDER BY k").map((row) => row.k);
}

sqlTest(`${backendName}: exec binds and returns text, integers, null and blobs`, (sql) => {
  createTable(sql);
  sql.exec("INSERT INTO t VALUES (?, ?, ?), (?, ?, ?)", "a", 1, new Uint8Array([0, 255]), "b", 2 ** 40, null);
  const rows = sql.exec<{ k: string; n: number; v: Uint8Array | null }>("SELECT k, n, v FROM t ORDER BY k");
  expect(rows).toEqual([
    { k: "a", n: 1, v: new Uint8Array([0, 255]) },
    { k: "b", n: 2 ** 40, v: null },
  ]);
  expect(rows[0]?.v).toBeInstanceOf(Uint8Array);
});

sqlTest(`${backendName}: transaction commits and returns the body's value`, (sql) => {
  createTable(sql);
  const result = sql.transaction(() => {
    sql.exec("INSERT INTO t (k) VALUES (?)", "a");
    sql.exec("INSERT INTO t (k) VALUES (?)", "b");
    return 42;
  });
  expect(result).toBe(42);
  expect(keys(sql)).toEqual(["a", "b"]);
});

sqlTest(`${backendName}: transaction rolls back everything when the body throws`, (sql) => {
  createTable(sql);
  sql.exec("INSERT INTO t (k) VALUES (?)", "before");
  const boom = new Error("boom");
  expect(() =>
    sql.transaction(() => {
      sql.exec("INSERT INTO t (k) VALUES (?)", "inside");
      sql.exec("UPDATE t SET n = 7 WHERE k = ?", "before");
      throw boom;
    }),
  ).toThrow(boom);
  expect(keys(sql)).toEqual(["before"]);
  expect(sql.exec("SELECT n FROM t")).toEqual([{ n: null }]);
});

sqlTest(`${backendName}: a failing statement rolls back the statements before it`, (sql) => {
  createTable(sql);
  expect(() =>
    sql.transaction(() => {
      sql.exec("INSERT INTO t (k) VALUES (?)", "a");
      sql.exec("INSERT INTO t (k) VALUES (?)", "a");
    }),
  ).toThrow();
  expect(keys(sql)).toEqual([]);
});

sqlTest(`${backendName}: nested transactions join the outer one and roll back with it`, (sql) => {
  createTable(sql);
  expect(() =>
    sql.transaction(() => {
      sql.exec("INSERT INTO t (k) VALUES (?)", "outer");
      sql.transaction(() => sql.exec("INSERT INTO t (k) VALUES (?)", "inner"));
      throw new Error("after inner");
    }),
  ).toThrow("after inner");
  expect(keys(sql)).toEqual([]);
});

sqlTest(`${backendName}: the database is usable again after a rollback`, (sql) => {
  createTable(sql);
  expect(() =>
    sql.transaction(() => {
      sql.exec("INSERT INTO t (k) VALUES (?)", "lost");
      throw new Error("rollback");
    }),
  ).toThrow("rollback");
  sql.transaction(() => sql.exec("INSERT INTO t (k) VALUES (?)", "kept"));
  expect(keys(sql)).toEqual(["kept"]);
});

vfsTest(`${backendName}: vfsTest opens a Vfs whose state survives reopen()`, (vfs, { reopen, sql }) => {
  vfs.mkdir("/a");
  vfs.writeFile("/a/b.txt", "hello");
  const again = reopen();
  expect(again.stat("/a").type).toBe("dir");
  expect(new TextDecoder().decode(again.readFile("/a/b.txt"))).toBe("hello");
  expect(sql.exec("SELECT 1 AS one")).toEqual([{ one: 1 }]);
});
