/**
 * The node:sqlite backend: the vfs over a fresh SQLite database per repetition, either a file
 * (WAL, synchronous=NORMAL, as computerd runs it) in a temporary directory or ":memory:".
 * Timed with performance.now() around the scenario's call, in this process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openVfs } from "@computer/vfs";
import { nodeSqlite, sha256Hex } from "@computer/vfs/node";
import { countingSql } from "./counting-sql.ts";
import type { BenchSize, Scenario } from "./scenarios.ts";
import type { Sample, Target } from "./target.ts";

/** Size of a node:sqlite database in bytes (pages in use, WAL included). */
function databaseBytes(db: DatabaseSync): number {
  const pages = db.prepare("PRAGMA page_count").get()?.page_count;
  const pageSize = db.prepare("PRAGMA page_size").get()?.page_size;
  return typeof pages === "number" && typeof pageSize === "number" ? pages * pageSize : Number.NaN;
}

/** A vfs on node:sqlite; `parentDir` holds the database files (ignored for ":memory:"). */
export function sqliteTarget(mode: "file" | "memory", parentDir: string): Target {
  let dir: string | undefined;
  return {
    id: mode === "file" ? "node" : "memory",
    name: mode === "file" ? "node:sqlite file" : "node:sqlite :memory:",
    timing: "performance.now() around the call, in process",
    async start() {
      if (mode === "file") dir = mkdtempSync(join(parentDir, "vfs-bench-sqlite-"));
    },
    async runOnce(scenario: Scenario, size: BenchSize, rep: number): Promise<Sample> {
      const file = dir === undefined ? ":memory:" : join(dir, `${scenario.id}-${rep}.sqlite`);
      const db = new DatabaseSync(file);
      try {
        const sql = countingSql(nodeSqlite(db));
        const vfs = openVfs(sql, { sha256: sha256Hex });
        const prepared = scenario.setup(vfs, size);
        sql.reset();
        const t0 = performance.now();
        const result = await scenario.run(vfs, size, prepared);
        const ms = performance.now() - t0;
        const counts = sql.counts();
        scenario.check(vfs, size, prepared, result);
        return { ms, sql: counts, dbBytes: databaseBytes(db) };
      } finally {
        db.close();
        if (dir !== undefined)
          for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
      }
    },
    async stop() {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}
