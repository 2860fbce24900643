/**
 * The exec journal in the Computer DO's SQLite, beside (never inside) the vfs tables: one row
 * per exec with its status, exit code, timing and sync state, and its output events by seq
 * (up to the exec's output cap) so a result can be rebuilt and a stream re-attached from any seq.
 * Tables are created on first write; reading never creates storage.
 */
import type { ExecResult, ExecSummary, OutputEvent } from "@computer/sdk/contract";
import type { ExecStatus, FinalStatus, RuntimeName, SyncInfo } from "./runtime.ts";

/** The API result object of docs/API.md, and an exec as `GET /exec` lists it: the contract's types. */
export type { ExecResult, ExecSummary, OutputEvent };

/** What the journal records when an exec ends. */
export interface ExecEnd {
  status: FinalStatus;
  exitCode: number | null;
  value?: unknown;
  durationMs: number;
  sync: SyncInfo;
  truncated: boolean;
  lastSeq: number;
  error?: { code: string; message: string };
}

/** Execs kept in the journal; the oldest finished ones (and their output) go first. */
export const JOURNAL_KEEP = 200;

interface ExecRow extends Record<string, SqlStorageValue> {
  id: string;
  runtime: string;
  status: string;
  exit_code: number | null;
  truncated: number;
  value: string | null;
  error: string | null;
  created_at: string;
  started_ms: number;
  duration_ms: number | null;
  sync_status: string;
  sync_rev: number | null;
  sync_conflicts: string;
  last_seq: number;
  detached: number;
}

interface EventRow extends Record<string, SqlStorageValue> {
  seq: number;
  stream: string;
  data: string;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS exec_journal (
     id TEXT PRIMARY KEY, runtime TEXT NOT NULL, status TEXT NOT NULL, exit_code INTEGER,
     truncated INTEGER NOT NULL DEFAULT 0, value TEXT, error TEXT, created_at TEXT NOT NULL,
     started_ms INTEGER NOT NULL, duration_ms INTEGER, sync_status TEXT NOT NULL,
     sync_rev INTEGER, sync_conflicts TEXT NOT NULL DEFAULT '[]', last_seq INTEGER NOT NULL DEFAULT -1,
     detached INTEGER NOT NULL DEFAULT 0)`,
  "CREATE INDEX IF NOT EXISTS exec_journal_started ON exec_journal (started_ms)",
  `CREATE TABLE IF NOT EXISTS exec_output (
     exec_id TEXT NOT NULL, seq INTEGER NOT NULL, stream TEXT NOT NULL, data TEXT NOT NULL,
     PRIMARY KEY (exec_id, seq)) WITHOUT ROWID`,
];

function syncOf(row: ExecRow): SyncInfo {
  const status = row.sync_status === "complete" || row.sync_status === "pending" ? row.sync_status : "none";
  const sync: SyncInfo = { status, conflicts: JSON.parse(row.sync_conflicts) as unknown[] };
  if (row.sync_rev !== null) sync.rev = row.sync_rev;
  return sync;
}

function statusOf(value: string): ExecStatus {
  switch (value) {
    case "running":
    case "completed":
    case "failed":
    case "timeout":
    case "killed":
      return value;
    default:
      return "failed";
  }
}

/** Reads and writes the exec tables of one Computer DO. */
export class ExecJournal {
  readonly #sql: SqlStorage;
  readonly #now: () => number;
  #exists = false;

  constructor(sql: SqlStorage, now: () => number = Date.now) {
    this.#sql = sql;
    this.#now = now;
  }

  #tablesExist(): boolean {
    if (!this.#exists) {
      const found = this.#sql.exec(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'exec_journal'",
      );
      this.#exists = found.toArray().length > 0;
      if (this.#exists) this.#migrate();
    }
    return this.#exists;
  }

  /** Journals written before background processes existed lack the `detached` column. */
  #migrate(): void {
    const columns = this.#sql.exec<{ name: string }>("PRAGMA table_info(exec_journal)");
    if (columns.toArray().some((column) => column.name === "detached")) return;
    this.#sql.exec("ALTER TABLE exec_journal ADD COLUMN detached INTEGER NOT NULL DEFAULT 0");
  }

  #ensureTables(): void {
    if (this.#tablesExist()) return;
    for (const statement of SCHEMA) this.#sql.exec(statement);
    this.#exists = true;
  }

  /** Records a new running exec and drops the oldest finished ones past JOURNAL_KEEP. */
  begin(id: string, runtime: RuntimeName, startedMs: number, detached = false): void {
    this.#ensureTables();
    this.#sql.exec(
      `INSERT INTO exec_journal (id, runtime, status, created_at, started_ms, sync_status, detached)
       VALUES (?, ?, 'running', ?, ?, 'none', ?)`,
      id,
      runtime,
      new Date(startedMs).toISOString(),
      startedMs,
      detached ? 1 : 0,
    );
    this.#prune();
  }

  #prune(): void {
    const old = this.#sql
      .exec<{ id: string }>(
        `SELECT id FROM exec_journal WHERE status != 'running' AND sync_status != 'pending'
         ORDER BY started_ms DESC, id DESC LIMIT -1 OFFSET ?`,
        JOURNAL_KEEP,
      )
      .toArray();
    for (const { id } of old) {
      this.#sql.exec("DELETE FROM exec_output WHERE exec_id = ?", id);
      this.#sql.exec("DELETE FROM exec_journal WHERE id = ?", id);
    }
  }

  /** Forgets an exec that never started. */
  discard(id: string): void {
    if (!this.#tablesExist()) return;
    this.#sql.exec("DELETE FROM exec_output WHERE exec_id = ?", id);
    this.#sql.exec("DELETE FROM exec_journal WHERE id = ?", id);
  }

  /** Stores one output event. */
  append(id: string, event: OutputEvent): void {
    this.#ensureTables();
    this.#sql.exec(
      "INSERT OR IGNORE INTO exec_output (exec_id, seq, stream, data) VALUES (?, ?, ?, ?)",
      id,
      event.seq,
      event.stream,
      event.data,
    );
  }

  /** Records how an exec ended. */
  finish(id: string, end: ExecEnd): void {
    this.#ensureTables();
    this.#sql.exec(
      `UPDATE exec_journal SET status = ?, exit_code = ?, truncated = ?, value = ?, error = ?,
         duration_ms = ?, sync_status = ?, sync_rev = ?, sync_conflicts = ?, last_seq = ? WHERE id = ?`,
      end.status,
      end.exitCode,
      end.truncated ? 1 : 0,
      end.value === undefined ? null : JSON.stringify(end.value),
      end.error === undefined ? null : JSON.stringify(end.error),
      end.durationMs,
      end.sync.status,
      end.sync.rev ?? null,
      JSON.stringify(end.sync.conflicts),
      end.lastSeq,
      id,
    );
  }

  /** Marks the sync of every exec in `ids` complete at `rev`. */
  completeSync(ids: readonly string[], rev: number, conflicts: unknown[]): void {
    if (!this.#tablesExist()) return;
    for (const id of ids) {
      this.#sql.exec(
        "UPDATE exec_journal SET sync_status = 'complete', sync_rev = ?, sync_conflicts = ? WHERE id = ?",
        rev,
        JSON.stringify(conflicts),
        id,
      );
    }
  }

  /** Ids of finished execs whose sync is still pending, oldest first. */
  pendingSync(): string[] {
    if (!this.#tablesExist()) return [];
    return this.#sql
      .exec<{ id: string }>(
        "SELECT id FROM exec_journal WHERE sync_status = 'pending' ORDER BY started_ms, id",
      )
      .toArray()
      .map((row) => row.id);
  }

  /**
   * Execs journaled as running that no live handle backs (the DO restarted under them): they
   * are recorded as failed, their sync pending when they ran in a container.
   */
  orphans(): string[] {
    if (!this.#tablesExist()) return [];
    return this.#sql
      .exec<{ id: string }>("SELECT id FROM exec_journal WHERE status = 'running'")
      .toArray()
      .map((row) => row.id);
  }

  /** Output events of `id` with seq > `after`, in order. */
  events(id: string, after = -1): OutputEvent[] {
    if (!this.#tablesExist()) return [];
    return this.#sql
      .exec<EventRow>(
        "SELECT seq, stream, data FROM exec_output WHERE exec_id = ? AND seq > ? ORDER BY seq",
        id,
        after,
      )
      .toArray()
      .map((row) => ({
        seq: row.seq,
        stream: row.stream === "stderr" ? "stderr" : "stdout",
        data: row.data,
      }));
  }

  #summary(row: ExecRow, lastSeq: number): ExecSummary {
    const summary: ExecSummary = {
      id: row.id,
      runtime: row.runtime === "shell" || row.runtime === "js" ? row.runtime : "container",
      status: statusOf(row.status),
      exitCode: row.exit_code,
      truncated: row.truncated === 1,
      durationMs: row.duration_ms ?? Math.max(0, this.#now() - row.started_ms),
      sync: syncOf(row),
      createdAt: row.created_at,
      lastSeq: Math.max(row.last_seq, lastSeq),
    };
    if (row.error !== null) summary.error = JSON.parse(row.error) as { code: string; message: string };
    if (row.detached === 1) summary.detached = true;
    return summary;
  }

  #result(row: ExecRow): ExecResult {
    let stdout = "";
    let stderr = "";
    let lastSeq = -1;
    for (const event of this.events(row.id)) {
      if (event.stream === "stdout") stdout += event.data;
      else stderr += event.data;
      lastSeq = event.seq;
    }
    const { error, detached, ...summary } = this.#summary(row, lastSeq);
    const result: ExecResult = { ...summary, stdout, stderr };
    if (row.value !== null) result.value = JSON.parse(row.value) as unknown;
    if (error !== undefined) result.error = error;
    if (detached !== undefined) result.detached = detached;
    return result;
  }

  /** The result of `id`, or undefined if the journal does not know it. */
  get(id: string): ExecResult | undefined {
    if (!this.#tablesExist()) return undefined;
    const row = this.#sql.exec<ExecRow>("SELECT * FROM exec_journal WHERE id = ?", id).toArray()[0];
    return row === undefined ? undefined : this.#result(row);
  }

  /** The most recent execs, newest first, without their output. */
  list(limit: number): ExecSummary[] {
    if (!this.#tablesExist()) return [];
    return this.#sql
      .exec<ExecRow & { max_seq: number | null }>(
        `SELECT j.*, (SELECT MAX(seq) FROM exec_output o WHERE o.exec_id = j.id) AS max_seq
         FROM exec_journal j ORDER BY j.started_ms DESC, j.rowid DESC LIMIT ?`,
        limit,
      )
      .toArray()
      .map((row) => this.#summary(row, row.max_seq ?? -1));
  }

  /** Forgets that the tables exist (after `deleteAll()` dropped them). */
  reset(): void {
    this.#exists = false;
  }
}
