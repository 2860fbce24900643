/**
 * A SqlLike wrapper that counts what the vfs asks of SQLite: statements, transactions, rows
 * and blob bytes in each direction. The counts are deterministic for a given scenario and
 * engine, so they belong beside wall-clock time. No `node:*`: bundled into the bench Worker.
 */
import type { SqlLike, SqlValue } from "@computer/vfs";

/** What one scenario cost in SQL. */
export interface SqlCounts {
  /** `exec` calls (one statement each). */
  statements: number;
  /** Outermost transactions (nested ones join them and are not counted). */
  transactions: number;
  /** Rows returned by all statements. */
  rows: number;
  /** Bytes of blob (Uint8Array) bindings sent to SQLite. */
  blobBytesIn: number;
  /** Bytes of blob values returned by SQLite. */
  blobBytesOut: number;
}

function zero(): SqlCounts {
  return { statements: 0, transactions: 0, rows: 0, blobBytesIn: 0, blobBytesOut: 0 };
}

/** `sql` with counters; `reset()` starts a new count, `counts()` reads it. */
export interface CountingSql extends SqlLike {
  counts(): SqlCounts;
  reset(): void;
}

/** Wraps `sql` so every statement and transaction is counted. */
export function countingSql(sql: SqlLike): CountingSql {
  let counts = zero();
  let depth = 0;
  return {
    exec<T>(query: string, ...bindings: SqlValue[]): T[] {
      counts.statements++;
      for (const value of bindings) if (value instanceof Uint8Array) counts.blobBytesIn += value.byteLength;
      const rows = sql.exec<T>(query, ...bindings);
      counts.rows += rows.length;
      for (const row of rows) {
        for (const value of Object.values(row as Record<string, unknown>)) {
          if (value instanceof Uint8Array) counts.blobBytesOut += value.byteLength;
        }
      }
      return rows;
    },
    transaction<T>(fn: () => T): T {
      if (depth === 0) counts.transactions++;
      depth++;
      try {
        return sql.transaction(fn);
      } finally {
        depth--;
      }
    },
    counts: () => ({ ...counts }),
    reset: () => {
      counts = zero();
    },
  };
}
