/**
 * A SqlLike over node:sqlite that groups many vfs transactions into one SQLite
 * transaction: each vfs operation runs in a savepoint (so a failing operation
 * still rolls back alone), and the enclosing transaction commits after a short
 * delay, after a number of operations, or on `commit()` (the fence).
 */
import type { SqlLike, SqlRow, SqlValue } from "@computer/vfs";

/** The parts of node:sqlite's DatabaseSync used here (structural, for tests). */
export interface DatabaseLike {
  prepare(sql: string): { all(...params: SqlValue[]): unknown[]; run(...params: SqlValue[]): unknown };
  exec(sql: string): void;
  close(): void;
}

/** When a batch commits. */
export interface BatchPolicy {
  /** Commit at most this long after the batch's first operation (default 20 ms). */
  maxDelayMs: number;
  /** Commit after this many operations (default 2000). */
  maxOps: number;
  /**
   * SQLite synchronous level (default NORMAL: with WAL, commits do not fsync,
   * checkpoints do). OFF trades crash safety of the mirror for speed.
   */
  synchronous: "NORMAL" | "OFF";
  /** WAL size in bytes that triggers a checkpoint (default 64 MiB; SQLite counts it in pages). */
  walAutocheckpointBytes: number;
}

/** A SqlLike with an explicit commit point. */
export interface BatchedSql extends SqlLike {
  /** Commits the open batch, if any. Synchronous; cheap when nothing is open. */
  commit(): void;
  /** Commits and closes the database. */
  close(): void;
  /**
   * Commits, then gives the database's free pages back to the file system (incremental
   * vacuum, then a truncating WAL checkpoint so the WAL shrinks too). Returns how many pages
   * went; does nothing (0) when there are none or the database is not in incremental mode.
   */
  reclaim(): number;
  /** Calls `listener` after each commit of a batch that ran operations; returns an unsubscribe. */
  onCommit(listener: () => void): () => void;
  /** Calls `listener` after an operation's changes were rolled back (it threw). */
  onRollback(listener: () => void): () => void;
  /** Counters for benchmarks: statements run, operations, commits. */
  readonly counters: { statements: number; operations: number; commits: number };
}

type Statement = ReturnType<DatabaseLike["prepare"]>;

/**
 * Wraps `db` (a fresh DatabaseSync). WAL with synchronous=NORMAL by default: the
 * mirror is a cache of the Durable Object, which is the durable copy.
 */
export function batchedSqlite(db: DatabaseLike, policy: Partial<BatchPolicy> = {}): BatchedSql {
  const maxDelayMs = policy.maxDelayMs ?? 20;
  const maxOps = policy.maxOps ?? 2000;
  const statements = new Map<string, Statement>();
  const counters = { statements: 0, operations: 0, commits: 0 };
  let depth = 0;
  let open = false;
  let opsInBatch = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listeners = new Set<() => void>();
  const rollbackListeners = new Set<() => void>();

  db.exec("PRAGMA journal_mode = WAL");
  db.exec(`PRAGMA synchronous = ${policy.synchronous ?? "NORMAL"}`);
  // Checkpoints fsync the database; fewer, larger ones keep 1 MiB blob writes cheap.
  const walBytes = policy.walAutocheckpointBytes ?? 64 << 20;
  const [page] = db.prepare("PRAGMA page_size").all() as { page_size: number }[];
  db.exec(`PRAGMA wal_autocheckpoint = ${Math.max(1, Math.floor(walBytes / (page?.page_size ?? 4096)))}`);
  // A WAL grown past that by one big transaction (a 1 GiB file) is cut back to it when it is
  // next reused, instead of keeping its largest size on disk for good.
  db.exec(`PRAGMA journal_size_limit = ${walBytes}`);
  // Each operation's savepoint keeps pages it changes in a sub-journal (for its ROLLBACK TO);
  // past 64 KiB SQLite moved that into a temporary file, written page by page: 8% of the JS
  // thread's CPU while a command wrote 100 MiB (docs/BENCH.md, "Moving bytes, eighth round").
  // The sub-journal never outlives its transaction, so crash safety is the same.
  db.exec("PRAGMA temp_store = MEMORY");

  function prepared(query: string): Statement {
    let statement = statements.get(query);
    if (!statement) {
      statement = db.prepare(query);
      statements.set(query, statement);
    }
    return statement;
  }

  function run(query: string): void {
    counters.statements++;
    prepared(query).run();
  }

  function commit(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (!open || depth > 0) return;
    open = false;
    opsInBatch = 0;
    counters.commits++;
    run("COMMIT");
    for (const listener of listeners) listener();
  }

  function begin(): void {
    if (open) return;
    run("BEGIN IMMEDIATE");
    open = true;
    timer = setTimeout(() => {
      try {
        commit();
      } catch (err) {
        console.error("computerd: committing the mirror failed", err);
      }
    }, maxDelayMs);
    // A pending commit must not keep the process alive on its own.
    timer.unref?.();
  }

  return {
    counters,
    exec<T = SqlRow>(query: string, ...bindings: SqlValue[]): T[] {
      counters.statements++;
      return prepared(query).all(...bindings) as T[];
    },
    transaction<T>(fn: () => T): T {
      if (depth > 0) return fn();
      begin();
      counters.operations++;
      run("SAVEPOINT op");
      depth++;
      try {
        const result = fn();
        run("RELEASE op");
        return result;
      } catch (err) {
        run("ROLLBACK TO op");
        run("RELEASE op");
        for (const listener of rollbackListeners) listener();
        throw err;
      } finally {
        depth--;
        opsInBatch++;
        if (opsInBatch >= maxOps) commit();
      }
    },
    commit,
    onCommit(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onRollback(listener) {
      rollbackListeners.add(listener);
      return () => rollbackListeners.delete(listener);
    },
    close(): void {
      commit();
      db.close();
    },
    reclaim(): number {
      commit();
      const [row] = prepared("PRAGMA freelist_count").all() as { freelist_count: number }[];
      const free = row?.freelist_count ?? 0;
      if (free === 0) return 0;
      db.exec("PRAGMA incremental_vacuum");
      const [left] = prepared("PRAGMA freelist_count").all() as { freelist_count: number }[];
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      return free - (left?.freelist_count ?? 0);
    },
  };
}
