/**
 * The index of published artifacts, kept in the Registry DO's SQLite: who owns each name,
 * which versions exist (immutable once reserved), and the summary the listings show. One
 * writer (the single Registry instance) makes "reserve the next version" atomic; the files
 * themselves live in the ARTIFACTS bucket.
 */
import type { ArtifactSummary } from "@computer/sdk/contract";
import { ApiError } from "../http/errors.ts";

/** A reservation older than this whose publish never finished is abandoned and may be taken over. */
export const PENDING_TIMEOUT_MS = 60 * 60 * 1000;

/** One published version as the registry lists it. */
export interface ArtifactVersionInfo {
  version: string;
  createdAt: string;
  type: "file" | "dir";
  files: number;
  bytes: number;
  /** The path a link opens: the file of a file artifact, "" (the index) for a directory. */
  entry: string;
}

/** What a finished publish records. */
export type ArtifactCommit = Omit<ArtifactVersionInfo, "version" | "createdAt">;

interface VersionRow extends Record<string, SqlStorageValue> {
  version: string;
  created_at: string;
  type: string;
  files: number;
  bytes: number;
  entry: string;
}

interface SummaryRow extends Record<string, SqlStorageValue> {
  name: string;
  computer: string;
  latest: string;
  versions: number;
  updated_at: string;
}

/** The artifact tables of the Registry DO. */
export class ArtifactIndex {
  readonly #storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS artifacts (
         name TEXT NOT NULL, version TEXT NOT NULL, computer TEXT NOT NULL, state TEXT NOT NULL,
         seq INTEGER NOT NULL, created_at TEXT NOT NULL, reserved_ms INTEGER NOT NULL,
         type TEXT NOT NULL DEFAULT 'file', files INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0, entry TEXT NOT NULL DEFAULT '',
         PRIMARY KEY (name, version)) WITHOUT ROWID`,
    );
    storage.sql.exec("CREATE INDEX IF NOT EXISTS artifacts_by_computer ON artifacts (computer, name)");
  }

  /**
   * Reserves `name@version` for `computer` (the next integer version when `version` is
   * undefined) and returns the version. 409 EEXIST if the version exists (or is being
   * published) or the name belongs to another computer.
   */
  reserve(name: string, version: string | undefined, computer: string, nowMs: number): string {
    const sql = this.#storage.sql;
    return this.#storage.transactionSync(() => {
      sql.exec(
        "DELETE FROM artifacts WHERE name = ? AND state = 'pending' AND reserved_ms < ?",
        name,
        nowMs - PENDING_TIMEOUT_MS,
      );
      const owner = sql
        .exec<{ computer: string }>("SELECT computer FROM artifacts WHERE name = ? LIMIT 1", name)
        .toArray()[0];
      if (owner !== undefined && owner.computer !== computer) {
        throw new ApiError("EEXIST", `artifact name '${name}' belongs to another computer`);
      }
      const chosen = version ?? this.#nextVersion(name);
      const taken = sql
        .exec("SELECT 1 FROM artifacts WHERE name = ? AND version = ?", name, chosen)
        .toArray();
      if (taken.length > 0) throw new ApiError("EEXIST", `artifact ${name}@${chosen} already exists`);
      const seq = sql.exec<{ s: number }>("SELECT COALESCE(MAX(seq), 0) + 1 AS s FROM artifacts").one().s;
      sql.exec(
        "INSERT INTO artifacts (name, version, computer, state, seq, created_at, reserved_ms) VALUES (?, ?, ?, 'pending', ?, ?, ?)",
        name,
        chosen,
        computer,
        seq,
        new Date(nowMs).toISOString(),
        nowMs,
      );
      return chosen;
    });
  }

  #nextVersion(name: string): string {
    const rows = this.#storage.sql
      .exec<{ version: string }>(
        "SELECT version FROM artifacts WHERE name = ? AND version NOT GLOB '*[^0-9]*'",
        name,
      )
      .toArray();
    let max = 0;
    for (const { version } of rows) max = Math.max(max, Number(version));
    return String(max + 1);
  }

  /** Marks a reserved version published. */
  commit(name: string, version: string, summary: ArtifactCommit): void {
    this.#storage.sql.exec(
      "UPDATE artifacts SET state = 'ready', type = ?, files = ?, bytes = ?, entry = ? WHERE name = ? AND version = ? AND state = 'pending'",
      summary.type,
      summary.files,
      summary.bytes,
      summary.entry,
      name,
      version,
    );
  }

  /** Drops a reservation whose publish failed. */
  release(name: string, version: string): void {
    this.#storage.sql.exec(
      "DELETE FROM artifacts WHERE name = ? AND version = ? AND state = 'pending'",
      name,
      version,
    );
  }

  /** Published names after `after` in name order, only `computer`'s when given. */
  list(computer: string | undefined, after: string | undefined, limit: number): ArtifactSummary[] {
    const rows = this.#storage.sql
      .exec<SummaryRow>(
        `SELECT a.name, a.computer, a.version AS latest, a.created_at AS updated_at,
           (SELECT COUNT(*) FROM artifacts b WHERE b.name = a.name AND b.state = 'ready') AS versions
         FROM artifacts a
         WHERE a.state = 'ready' AND a.name > ? AND (? IS NULL OR a.computer = ?)
           AND a.seq = (SELECT MAX(c.seq) FROM artifacts c WHERE c.name = a.name AND c.state = 'ready')
         ORDER BY a.name LIMIT ?`,
        after ?? "",
        computer ?? null,
        computer ?? null,
        limit,
      )
      .toArray();
    return rows.map((r) => ({
      name: r.name,
      computer: r.computer,
      latest: r.latest,
      versions: r.versions,
      updatedAt: r.updated_at,
    }));
  }

  /** The owner and published versions of `name` (newest first), or undefined if none is published. */
  versions(name: string): { computer: string; versions: ArtifactVersionInfo[] } | undefined {
    const owner = this.#storage.sql
      .exec<{ computer: string }>(
        "SELECT computer FROM artifacts WHERE name = ? AND state = 'ready' LIMIT 1",
        name,
      )
      .toArray()[0];
    if (owner === undefined) return undefined;
    const rows = this.#storage.sql
      .exec<VersionRow>(
        "SELECT version, created_at, type, files, bytes, entry FROM artifacts WHERE name = ? AND state = 'ready' ORDER BY seq DESC",
        name,
      )
      .toArray();
    return {
      computer: owner.computer,
      versions: rows.map((r) => ({
        version: r.version,
        createdAt: r.created_at,
        type: r.type === "dir" ? "dir" : "file",
        files: r.files,
        bytes: r.bytes,
        entry: r.entry,
      })),
    };
  }
}
