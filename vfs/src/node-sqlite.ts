/**
 * SqlLike over node:sqlite's DatabaseSync, used by computerd, the node tests and
 * the benchmarks. Statements are prepared once and cached; transactions nest by
 * joining the outermost one.
 */
import type { SqlLike, SqlRow, SqlValue } from "./sql.ts";

/** The parts of node:sqlite's DatabaseSync this adapter uses (structural: no `node:*` import here). */
export interface DatabaseSyncLike {
  prepare(sql: string): { all(...params: SqlValue[]): unknown[] };
  exec(sql: string): void;
}

/** Wraps a node:sqlite database. Pass a fresh `new DatabaseSync(path)`; WAL mode is turned on for files. */
export function nodeSqlite(db: DatabaseSyncLike): SqlLike {
  const statements = new Map<string, { all(...params: SqlValue[]): unknown[] }>();
  let depth = 0;
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  return {
    exec<T = SqlRow>(query: string, ...bindings: SqlValue[]): T[] {
      let statement = statements.get(query);
      if (!statement) {
        statement = db.prepare(query);
        statements.set(query, statement);
      }
      return statement.all(...bindings) as T[];
    },
    transaction<T>(fn: () => T): T {
      if (depth > 0) return fn();
      db.exec("BEGIN IMMEDIATE");
      depth++;
      try {
        const result = fn();
        db.exec("COMMIT");
        return result;
      } catch (err) {
        db.exec("ROLLBACK");
        throw err;
      } finally {
        depth--;
      }
    },
  };
}
