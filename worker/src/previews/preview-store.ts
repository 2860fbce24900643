/**
 * The open previews of one computer in its Durable Object's SQLite: one row per port with the
 * preview's id (which its URLs are signed with), creation and expiry. A URL works only while
 * its id is the open one of its port, so closing a preview kills every URL of it at once.
 * Expired rows are dropped when read. The table is created on first write.
 */
import { accessOf, type PreviewAccess } from "./preview-link.ts";

/** One open preview. */
export interface PreviewRecord {
  port: number;
  id: string;
  access: PreviewAccess;
  createdMs: number;
  expiresMs: number;
}

interface PreviewRow extends Record<string, SqlStorageValue> {
  port: number;
  id: string;
  created_ms: number;
  expires_ms: number;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS previews (
  port INTEGER PRIMARY KEY, id TEXT NOT NULL, created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL)`;

function record(row: PreviewRow): PreviewRecord {
  return {
    port: row.port,
    id: row.id,
    access: accessOf(row.id),
    createdMs: row.created_ms,
    expiresMs: row.expires_ms,
  };
}

/** Reads and writes the previews table of one Computer DO. */
export class PreviewStore {
  readonly #sql: SqlStorage;
  #exists = false;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #tableExists(): boolean {
    if (!this.#exists) {
      const found = this.#sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'previews'");
      this.#exists = found.toArray().length > 0;
    }
    return this.#exists;
  }

  #dropExpired(nowMs: number): void {
    this.#sql.exec("DELETE FROM previews WHERE expires_ms <= ?", nowMs);
  }

  /** The open preview of `port` at `nowMs`, if any. */
  get(port: number, nowMs: number): PreviewRecord | undefined {
    if (!this.#tableExists()) return undefined;
    this.#dropExpired(nowMs);
    const row = this.#sql.exec<PreviewRow>("SELECT * FROM previews WHERE port = ?", port).toArray()[0];
    return row === undefined ? undefined : record(row);
  }

  /** Every open preview at `nowMs`, by port. */
  list(nowMs: number): PreviewRecord[] {
    if (!this.#tableExists()) return [];
    this.#dropExpired(nowMs);
    return this.#sql.exec<PreviewRow>("SELECT * FROM previews ORDER BY port").toArray().map(record);
  }

  /** Opens (or replaces) the preview of `preview.port`. */
  put(preview: PreviewRecord): void {
    if (!this.#tableExists()) {
      this.#sql.exec(SCHEMA);
      this.#exists = true;
    }
    this.#sql.exec(
      "INSERT OR REPLACE INTO previews (port, id, created_ms, expires_ms) VALUES (?, ?, ?, ?)",
      preview.port,
      preview.id,
      preview.createdMs,
      preview.expiresMs,
    );
  }

  /** Closes the preview of `port`; false when none was open. */
  delete(port: number): boolean {
    if (!this.#tableExists()) return false;
    return this.#sql.exec("DELETE FROM previews WHERE port = ?", port).rowsWritten > 0;
  }

  /** Forgets that the table exists (after `deleteAll()` dropped it). */
  reset(): void {
    this.#exists = false;
  }
}
