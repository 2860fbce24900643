import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { batchedSqlite } from "./batched-sqlite.ts";

function open(maxOps = 2000) {
  const db = new DatabaseSync(":memory:");
  const sql = batchedSqlite(db, { maxOps, maxDelayMs: 60_000 });
  sql.exec("CREATE TABLE t (k TEXT PRIMARY KEY)");
  return { db, sql };
}

describe("batchedSqlite", () => {
  it("groups operations into one transaction and rolls back only the failing one", () => {
    const { sql } = open();
    sql.transaction(() => sql.exec("INSERT INTO t VALUES ('a')"));
    expect(() =>
      sql.transaction(() => {
        sql.exec("INSERT INTO t VALUES ('b')");
        throw new Error("fails after a write");
      }),
    ).toThrow("fails after a write");
    sql.transaction(() => sql.exec("INSERT INTO t VALUES ('c')"));
    expect(sql.counters.commits).toBe(0);
    sql.commit();
    expect(sql.counters.commits).toBe(1);
    expect(sql.exec<{ k: string }>("SELECT k FROM t ORDER BY k").map((r) => r.k)).toEqual(["a", "c"]);
    sql.close();
  });

  it("nests transactions into the outer one and commits after maxOps, notifying listeners", () => {
    const { sql } = open(3);
    let commits = 0;
    const stop = sql.onCommit(() => commits++);
    for (const k of ["a", "b", "c", "d"]) {
      sql.transaction(() => sql.transaction(() => sql.exec("INSERT INTO t VALUES (?)", k)));
    }
    expect(commits).toBe(1);
    stop();
    sql.commit();
    expect(commits).toBe(1);
    expect(sql.exec("SELECT k FROM t")).toHaveLength(4);
    sql.close();
  });
});

describe("the WAL", () => {
  it("is cut back to the checkpoint size after one big transaction, once it is reused", () => {
    const dir = mkdtempSync(join(tmpdir(), "computerd-wal-"));
    const file = join(dir, "db.sqlite");
    const wal = () => statSync(`${file}-wal`).size;
    try {
      const sql = batchedSqlite(new DatabaseSync(file), { walAutocheckpointBytes: 1024 * 4096 });
      sql.exec("CREATE TABLE t (v BLOB)");
      sql.transaction(() => {
        for (let i = 0; i < 64; i++) sql.exec("INSERT INTO t VALUES (?)", new Uint8Array(1 << 20));
      });
      sql.commit();
      expect(wal()).toBeGreaterThan(64 << 20);
      // The commit above checkpointed (past 1,024 pages); the next write restarts the WAL.
      sql.transaction(() => sql.exec("DELETE FROM t"));
      sql.commit();
      expect(wal()).toBeLessThanOrEqual(1024 * 4096 + (64 << 10));
      sql.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Temporary files SQLite has open in this process (it names them etilqs_*, unlinked at once). */
function sqliteTempFiles(): string[] {
  const links = readdirSync("/proc/self/fd").map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return "";
    }
  });
  return links.filter((link) => link.includes("etilqs_"));
}

describe("the savepoints' sub-journal", () => {
  it("stays in memory while operations store 1 MiB blobs (no temporary file)", () => {
    const dir = mkdtempSync(join(tmpdir(), "computerd-subjournal-"));
    try {
      const sql = batchedSqlite(new DatabaseSync(join(dir, "db.sqlite")));
      sql.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)");
      const seen = new Set<string>();
      // One batch of eight operations, as the write-back stores a streaming file's pages.
      for (let k = 0; k < 8; k++) {
        sql.transaction(() => {
          sql.exec("INSERT INTO t VALUES (?, ?)", k, new Uint8Array(1 << 20).fill(k));
          for (const file of sqliteTempFiles()) seen.add(file);
        });
      }
      sql.commit();
      expect(sql.exec<{ n: number }>("SELECT count(*) AS n FROM t")[0]?.n).toBe(8);
      expect([...seen]).toEqual([]);
      sql.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
