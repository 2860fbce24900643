/**
 * The computer record kept beside the vfs tables in the Computer DO's SQLite: id, creation
 * time, egress policy (egress/egress.ts), token generation and lifecycle state. The quota lives
 * in the vfs.
 */
import type { Egress } from "../egress/egress.ts";

/** `ready`: a live computer. `importing`: a fork target still receiving its tree (invisible). */
export type ComputerState = "ready" | "importing";

/** What the DO stores about its computer. */
export interface ComputerRecord {
  id: string;
  createdAt: string;
  egress: Egress;
  /** Current token generation: tokens carrying another value are revoked. */
  tokenNonce: string;
  state: ComputerState;
}

/** Default quota of a new computer: 1 GiB. */
export const DEFAULT_QUOTA_BYTES = 1024 ** 3;
/** Largest quota: 10 GiB, the storage limit of one SQLite-backed Durable Object. */
export const MAX_QUOTA_BYTES = 10 * 1024 ** 3;
/** A fresh random token generation. */
export function newTokenNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

interface RecordRow extends Record<string, SqlStorageValue> {
  id: string;
  created_at: string;
  egress: string;
  token_nonce: string;
  state: string;
}

/** Reads and writes the one-row record table. */
export class RecordStore {
  readonly #sql: SqlStorage;
  #exists = false;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #tableExists(): boolean {
    if (!this.#exists) {
      const found = this.#sql.exec(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'computer_record'",
      );
      this.#exists = found.toArray().length > 0;
    }
    return this.#exists;
  }

  /** The record, or undefined if this computer does not exist (reading never creates storage). */
  get(): ComputerRecord | undefined {
    if (!this.#tableExists()) return undefined;
    const row = this.#sql.exec<RecordRow>("SELECT * FROM computer_record").toArray()[0];
    if (row === undefined) return undefined;
    return {
      id: row.id,
      createdAt: row.created_at,
      egress: JSON.parse(row.egress) as Egress,
      tokenNonce: row.token_nonce,
      state: row.state === "importing" ? "importing" : "ready",
    };
  }

  /** Inserts or replaces the record. */
  put(record: ComputerRecord): void {
    if (!this.#tableExists()) {
      this.#sql.exec(
        `CREATE TABLE IF NOT EXISTS computer_record (
           one INTEGER PRIMARY KEY CHECK (one = 1), id TEXT NOT NULL, created_at TEXT NOT NULL,
           egress TEXT NOT NULL, token_nonce TEXT NOT NULL, state TEXT NOT NULL)`,
      );
      this.#exists = true;
    }
    this.#sql.exec(
      "INSERT OR REPLACE INTO computer_record (one, id, created_at, egress, token_nonce, state) VALUES (1, ?, ?, ?, ?, ?)",
      record.id,
      record.createdAt,
      JSON.stringify(record.egress),
      record.tokenNonce,
      record.state,
    );
  }

  /** Forgets that the table exists (after `deleteAll()` dropped it). */
  reset(): void {
    this.#exists = false;
  }
}
