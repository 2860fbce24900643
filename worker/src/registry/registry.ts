/**
 * The Registry Durable Object: one instance (REGISTRY_NAME) indexing every computer id, so
 * `GET /v1/computers` need not enumerate Durable Objects. Computer DOs add themselves on
 * create and remove themselves on delete; both are idempotent. It also keeps the index of
 * published artifacts (artifact-index.ts), where one writer makes version reservation atomic.
 */
import { DurableObject } from "cloudflare:workers";
import type { ArtifactSummary } from "@computer/sdk/contract";
import { capture, type RpcResult } from "../computer/rpc-result.ts";
import type { Env } from "../env.ts";
import { type ArtifactCommit, ArtifactIndex, type ArtifactVersionInfo } from "./artifact-index.ts";

/** The name of the single Registry instance. */
export const REGISTRY_NAME = "global";

/** One registered computer. */
export interface RegistryEntry {
  id: string;
  createdAt: string;
}

/** A page of the registry, sorted by id. */
export interface RegistryPage {
  entries: RegistryEntry[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: string;
}

/** The index of computers (SQLite-backed). */
export class Registry extends DurableObject<Env> {
  readonly #artifacts: ArtifactIndex;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS computers (id TEXT PRIMARY KEY, created_at TEXT NOT NULL) WITHOUT ROWID",
    );
    this.#artifacts = new ArtifactIndex(ctx.storage);
  }

  /** Reserves `name@version` (or the next integer version) for `computer`; EEXIST if taken. */
  reserveArtifact(name: string, version: string | undefined, computer: string): Promise<RpcResult<string>> {
    return capture(() => this.#artifacts.reserve(name, version, computer, Date.now()));
  }

  /** Marks a reserved version published. */
  commitArtifact(name: string, version: string, summary: ArtifactCommit): void {
    this.#artifacts.commit(name, version, summary);
  }

  /** Drops the reservation of a publish that failed. */
  releaseArtifact(name: string, version: string): void {
    this.#artifacts.release(name, version);
  }

  /** Published artifact names after `after` (all, or only `computer`'s). */
  listArtifacts(computer: string | undefined, after: string | undefined, limit: number): ArtifactSummary[] {
    return this.#artifacts.list(computer, after, limit);
  }

  /** The owner and versions of `name`, or null if nothing is published under it. */
  artifactVersions(name: string): { computer: string; versions: ArtifactVersionInfo[] } | null {
    return this.#artifacts.versions(name) ?? null;
  }

  /** Records `id` (keeps the first createdAt if already present). */
  add(id: string, createdAt: string): void {
    this.ctx.storage.sql.exec(
      "INSERT OR IGNORE INTO computers (id, created_at) VALUES (?, ?)",
      id,
      createdAt,
    );
  }

  /** Forgets `id`. */
  remove(id: string): void {
    this.ctx.storage.sql.exec("DELETE FROM computers WHERE id = ?", id);
  }

  /** Up to `limit` computers with ids after `after`, in id order. */
  list(after: string | undefined, limit: number): RegistryPage {
    const rows = this.ctx.storage.sql
      .exec<{ id: string; created_at: string }>(
        "SELECT id, created_at FROM computers WHERE id > ? ORDER BY id LIMIT ?",
        after ?? "",
        limit + 1,
      )
      .toArray();
    const entries = rows.slice(0, limit).map((row) => ({ id: row.id, createdAt: row.created_at }));
    const last = entries.at(-1);
    return rows.length > limit && last !== undefined ? { entries, next: last.id } : { entries };
  }
}
