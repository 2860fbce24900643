/**
 * The small synchronous SQL interface the vfs runs on. A Durable Object's
 * `ctx.storage` satisfies it through `durableObjectSql()`, node:sqlite through
 * `nodeSqlite()` (in the node-only entry point), so the same engine runs on both.
 */

export type SqlValue = string | number | null | Uint8Array;
export type SqlRow = Record<string, SqlValue>;

/** What the vfs needs from a SQLite database. */
export interface SqlLike {
  /** Runs one statement; `?` placeholders take `bindings` (at most 100, the DO limit). */
  exec<T = SqlRow>(query: string, ...bindings: SqlValue[]): T[];
  /** Runs `fn` as one atomic transaction; nested calls join the outer one. */
  transaction<T>(fn: () => T): T;
}

/** The parts of a Durable Object's `ctx.storage` the adapter uses (structural, so vfs imports no `cloudflare:*`). */
export interface DurableObjectStorageLike {
  sql: { exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] } };
  transactionSync<T>(fn: () => T): T;
}

/** Adapts a DO's storage. Blob columns come back as ArrayBuffer there; they are turned into Uint8Array. */
export function durableObjectSql(storage: DurableObjectStorageLike): SqlLike {
  let depth = 0;
  return {
    exec<T = SqlRow>(query: string, ...bindings: SqlValue[]): T[] {
      const rows = storage.sql.exec(query, ...bindings).toArray();
      for (const row of rows) {
        for (const key in row) {
          const v = row[key];
          if (v instanceof ArrayBuffer) row[key] = new Uint8Array(v);
        }
      }
      return rows as T[];
    },
    transaction<T>(fn: () => T): T {
      if (depth > 0) return fn();
      depth++;
      try {
        return storage.transactionSync(fn);
      } finally {
        depth--;
      }
    },
  };
}
