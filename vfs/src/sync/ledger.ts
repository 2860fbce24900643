/**
 * The sync ledger: what one side durably remembers about its peer, in `sync_*` tables of the
 * SAME database as its vfs (so a batch's changes and its bookkeeping commit together). Per path
 * the base fingerprint (last state both sides agreed on); paths that must be re-sent; the batch
 * in flight; recently applied batch ids; the cursors of both directions; and echo records (the
 * feed revision at which an applied batch left a path equal to its base); and the paths of the
 * last few own batches the peer acknowledged (for the peer's full listings).
 */
import type { SqlLike } from "../sql.ts";
import type { ApplyResult } from "./wire.ts";

const TABLES = [
  "CREATE TABLE IF NOT EXISTS sync_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS sync_base (path TEXT PRIMARY KEY, fp TEXT NOT NULL, dir TEXT) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS sync_dirty (path TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS sync_applied (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, result TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS sync_seen (path TEXT PRIMARY KEY) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS sync_echo (path TEXT PRIMARY KEY, rev INTEGER NOT NULL) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS sync_committed (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, paths TEXT NOT NULL)",
];

/** Every sync table, for reset and destroy. */
const ALL_TABLES = [
  "sync_meta",
  "sync_base",
  "sync_dirty",
  "sync_applied",
  "sync_seen",
  "sync_echo",
  "sync_committed",
];

/** Batch ids remembered for idempotency; a sender has at most one batch in flight. */
const APPLIED_KEPT = 64;

/** This side's own acknowledged batches remembered (with their paths) for the peer's listings. */
const COMMITTED_KEPT = 16;

/** The record of the batch a sender sent and has not yet seen acknowledged. */
export interface Inflight {
  id: string;
  /** The sender's feed cursor once it is applied. */
  cursor: string;
  /** Whether a full listing is still running after this batch. */
  fullPass: boolean;
  /** Path, fingerprint and directory attributes of each change sent: the base once acknowledged. */
  entries: [string, string, string | null][];
  /** Dirty paths (with their mark's sequence number) the batch covered, cleared once acknowledged. */
  dirty: [string, number][];
}

/** One base row: the agreed fingerprint, and for directories the attributes to recreate them with. */
export interface BaseRow {
  path: string;
  fp: string;
  dir: string | null;
}

/** Upper bound (exclusive) of the paths strictly below `path`, for range scans: "/" sorts just before "0". */
function below(path: string): [string, string] {
  return path === "/" ? ["/", "0"] : [`${path}/`, `${path}0`];
}

/** Row access to the sync tables of one database. */
export class Ledger {
  readonly sql: SqlLike;
  /**
   * Whether a full listing from the peer runs, while a batch is being applied (read once per
   * batch instead of once per path); undefined outside `withListingKnown`.
   */
  #listing: boolean | undefined;

  constructor(sql: SqlLike) {
    this.sql = sql;
    sql.transaction(() => {
      for (const statement of TABLES) sql.exec(statement);
    });
  }

  /** A value of `sync_meta` (id, peer, cursors, the batch in flight, ...). */
  meta(key: string): string | undefined {
    return this.sql.exec<{ value: string }>("SELECT value FROM sync_meta WHERE key = ?", key)[0]?.value;
  }

  /** Sets (or, with undefined, removes) a value of `sync_meta`. */
  setMeta(key: string, value: string | undefined): void {
    if (value === undefined) this.sql.exec("DELETE FROM sync_meta WHERE key = ?", key);
    else {
      this.sql.exec(
        "INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        key,
        value,
      );
    }
  }

  /** The agreed fingerprint of `path` ("" when none). */
  base(path: string): string {
    return this.baseRow(path)?.fp ?? "";
  }

  /** The base rows of those of `paths` that have one (one statement). */
  bases(paths: readonly string[]): BaseRow[] {
    if (paths.length === 0) return [];
    return this.sql.exec<BaseRow>(
      "SELECT path, fp, dir FROM sync_base WHERE path IN (SELECT value FROM json_each(?))",
      JSON.stringify(paths),
    );
  }

  /** Which of `paths` (none of them "/") have base rows strictly below them (one statement). */
  withBaseBelow(paths: readonly string[]): Set<string> {
    if (paths.length === 0) return new Set();
    return new Set(
      this.sql
        .exec<{ path: string }>(
          "SELECT j.value AS path FROM json_each(?) j WHERE EXISTS (SELECT 1 FROM sync_base b WHERE b.path >= j.value || '/' AND b.path < j.value || '0')",
          JSON.stringify(paths),
        )
        .map((row) => row.path),
    );
  }

  /** True when any path other than the root has an agreed state. */
  hasBase(): boolean {
    return this.sql.exec("SELECT 1 FROM sync_base WHERE path <> '/' LIMIT 1").length > 0;
  }

  /** The base row of `path`, with the directory attributes recorded for it. */
  baseRow(path: string): BaseRow | undefined {
    return this.sql.exec<BaseRow>("SELECT path, fp, dir FROM sync_base WHERE path = ?", path)[0];
  }

  /**
   * Records the agreed state of `path`; "" (absent) deletes the row. While a full listing from
   * the peer runs, the path counts as listed: it was agreed after the listing began.
   */
  setBase(path: string, fp: string, dir: string | null = null): void {
    if (this.#listing ?? this.meta("fullIn") === "1") this.markSeen(path);
    if (fp === "") this.sql.exec("DELETE FROM sync_base WHERE path = ?", path);
    else {
      this.sql.exec(
        "INSERT INTO sync_base (path, fp, dir) VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET fp = excluded.fp, dir = excluded.dir",
        path,
        fp,
        dir,
      );
    }
  }

  /** setBase for many distinct paths at once: a statement or two whatever their number. */
  setBases(rows: readonly BaseRow[]): void {
    if (rows.length === 0) return;
    if (this.#listing ?? this.meta("fullIn") === "1") {
      this.sql.exec(
        "INSERT INTO sync_seen (path) SELECT value FROM json_each(?) WHERE true ON CONFLICT (path) DO NOTHING",
        JSON.stringify(rows.map((row) => row.path)),
      );
    }
    const gone = rows.filter((row) => row.fp === "").map((row) => row.path);
    if (gone.length > 0) {
      this.sql.exec(
        "DELETE FROM sync_base WHERE path IN (SELECT value FROM json_each(?))",
        JSON.stringify(gone),
      );
    }
    const kept = rows.filter((row) => row.fp !== "");
    if (kept.length === 0) return;
    this.sql.exec(
      "INSERT INTO sync_base (path, fp, dir) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM jsonb_each(?) WHERE true ON CONFLICT (path) DO UPDATE SET fp = excluded.fp, dir = excluded.dir",
      JSON.stringify(kept.map((row) => [row.path, row.fp, row.dir])),
    );
  }

  /**
   * Runs `fn` (inside a transaction) with the listing state read once: many setBase calls in a
   * row then cost one statement each.
   */
  withListingKnown<T>(fn: () => T): T {
    if (this.#listing !== undefined) return fn();
    this.#listing = this.meta("fullIn") === "1";
    try {
      return fn();
    } finally {
      this.#listing = undefined;
    }
  }

  /** Forgets the base of every path strictly below `path`. */
  clearBaseBelow(path: string): void {
    const [from, to] = below(path);
    this.sql.exec("DELETE FROM sync_base WHERE path >= ? AND path < ?", from, to);
    this.sql.exec("DELETE FROM sync_echo WHERE path >= ? AND path < ?", from, to);
  }

  /** Base rows strictly below `path`, deepest last when sorted by path. */
  baseBelow(path: string): BaseRow[] {
    const [from, to] = below(path);
    return this.sql.exec<BaseRow>(
      "SELECT path, fp, dir FROM sync_base WHERE path >= ? AND path < ?",
      from,
      to,
    );
  }

  /** Marks `path` to be sent again even if the feed does not list it (a conflict kept our version). */
  markDirty(path: string): void {
    // Its base no longer matches its state: it is not an echo any more.
    this.sql.exec("DELETE FROM sync_echo WHERE path = ?", path);
    const seq = Number(this.meta("dirtySeq") ?? "0") + 1;
    this.setMeta("dirtySeq", String(seq));
    this.sql.exec(
      "INSERT INTO sync_dirty (path, seq) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET seq = excluded.seq",
      path,
      seq,
    );
  }

  /** Up to `limit` marked paths with the sequence number of their latest mark. */
  dirtyEntries(limit: number): [string, number][] {
    return this.sql
      .exec<{ path: string; seq: number }>("SELECT path, seq FROM sync_dirty ORDER BY path LIMIT ?", limit)
      .map((r) => [r.path, r.seq]);
  }

  /** Clears marks that were not renewed since they were read. */
  clearDirtyEntries(entries: readonly [string, number][]): void {
    for (const [path, seq] of entries)
      this.sql.exec("DELETE FROM sync_dirty WHERE path = ? AND seq = ?", path, seq);
  }

  /** The batch this side sent and has not seen settled. */
  inflight(): Inflight | undefined {
    const raw = this.meta("inflight");
    return raw === undefined ? undefined : (JSON.parse(raw) as Inflight);
  }

  /** Records (or, with undefined, forgets) the batch in flight. */
  setInflight(inflight: Inflight | undefined): void {
    this.setMeta("inflight", inflight === undefined ? undefined : JSON.stringify(inflight));
  }

  /** The stored result of an applied batch id, if remembered. */
  applied(id: string): ApplyResult | undefined {
    const raw = this.sql.exec<{ result: string }>("SELECT result FROM sync_applied WHERE id = ?", id)[0]
      ?.result;
    return raw === undefined ? undefined : (JSON.parse(raw) as ApplyResult);
  }

  /** Remembers a batch id and its result; only the last APPLIED_KEPT are kept. */
  recordApplied(id: string, result: ApplyResult): void {
    const seq = Number(this.meta("appliedSeq") ?? "0") + 1;
    this.setMeta("appliedSeq", String(seq));
    this.sql.exec(
      "INSERT INTO sync_applied (id, seq, result) VALUES (?, ?, ?)",
      id,
      seq,
      JSON.stringify(result),
    );
    this.sql.exec("DELETE FROM sync_applied WHERE seq <= ?", seq - APPLIED_KEPT);
  }

  /** Notes that the running full listing mentioned `path`. */
  markSeen(path: string): void {
    this.sql.exec("INSERT INTO sync_seen (path) VALUES (?) ON CONFLICT (path) DO NOTHING", path);
  }

  /** Starts (true) or ends (false) a full listing from the peer. */
  setListing(running: boolean): void {
    this.sql.exec("DELETE FROM sync_seen");
    this.setMeta("fullIn", running ? "1" : undefined);
    if (this.#listing !== undefined) this.#listing = running;
  }

  /**
   * Records that each of `paths`, as of its current change-feed revision, holds exactly its
   * base (the state an applied batch just agreed on). The sender's scan skips such a feed
   * entry without reading the path: it is the echo of what the peer sent. One statement.
   */
  recordEchoes(paths: readonly string[]): void {
    if (paths.length === 0) return;
    this.sql.exec(
      "INSERT INTO sync_echo (path, rev) SELECT path, rev FROM changes WHERE path IN (SELECT value FROM json_each(?)) ON CONFLICT (path) DO UPDATE SET rev = excluded.rev",
      JSON.stringify(paths),
    );
  }

  /** The echo revisions recorded for `paths` (one statement). */
  echoes(paths: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    if (paths.length === 0) return out;
    for (const row of this.sql.exec<{ path: string; rev: number }>(
      "SELECT path, rev FROM sync_echo WHERE path IN (SELECT value FROM json_each(?))",
      JSON.stringify(paths),
    )) {
      out.set(row.path, row.rev);
    }
    return out;
  }

  /** True when `path` still holds the state an applied batch of the peer left there (its echo record is current). */
  isEcho(path: string): boolean {
    return (
      this.sql.exec(
        "SELECT 1 FROM sync_echo e JOIN changes c ON c.path = e.path AND c.rev = e.rev WHERE e.path = ?",
        path,
      ).length > 0
    );
  }

  /** Which of `paths` still hold the state an applied batch of the peer left there (one statement). */
  currentEchoes(paths: readonly string[]): Set<string> {
    if (paths.length === 0) return new Set();
    return new Set(
      this.sql
        .exec<{ path: string }>(
          "SELECT e.path FROM sync_echo e JOIN changes c ON c.path = e.path AND c.rev = e.rev WHERE e.path IN (SELECT value FROM json_each(?))",
          JSON.stringify(paths),
        )
        .map((row) => row.path),
    );
  }

  /** Forgets echo records the peer's cursor has passed (revisions below `rev`). */
  pruneEchoes(rev: number): void {
    this.sql.exec("DELETE FROM sync_echo WHERE rev < ?", rev);
  }

  /**
   * Forgets the base of every path this side's change feed no longer knows (its deletion record
   * was pruned). Called when this side starts a full listing: the peer removes those paths as
   * unlisted, so they are agreed absent, and a path re-created here later is sent as new.
   */
  forgetPruned(): void {
    this.sql.exec(
      "DELETE FROM sync_base WHERE path <> '/' AND NOT EXISTS (SELECT 1 FROM changes c WHERE c.path = sync_base.path)",
    );
  }

  /** Remembers that the peer applied our batch `id` with these paths (the latest COMMITTED_KEPT). */
  recordCommitted(id: string, paths: readonly string[]): void {
    this.sql.exec("INSERT INTO sync_committed (id, paths) VALUES (?, ?)", id, JSON.stringify(paths));
    this.sql.exec(
      "DELETE FROM sync_committed WHERE seq <= (SELECT MAX(seq) FROM sync_committed) - ?",
      COMMITTED_KEPT,
    );
  }

  /**
   * Paths of our batches the peer applied after our batch `ack` (every remembered one when
   * `ack` is unknown): a listing the peer built when `ack` was its latest cannot mention them.
   */
  committedAfter(ack: string | undefined): string[] {
    const from =
      ack === undefined
        ? undefined
        : this.sql.exec<{ seq: number }>("SELECT seq FROM sync_committed WHERE id = ?", ack)[0]?.seq;
    return this.sql
      .exec<{ paths: string }>("SELECT paths FROM sync_committed WHERE seq > ?", from ?? 0)
      .flatMap((row) => JSON.parse(row.paths) as string[]);
  }

  /** Base rows a full listing did not mention, deepest first. */
  unseenBase(): BaseRow[] {
    return this.sql
      .exec<BaseRow>(
        "SELECT path, fp, dir FROM sync_base b WHERE NOT EXISTS (SELECT 1 FROM sync_seen s WHERE s.path = b.path) ORDER BY path DESC",
      )
      .filter((row) => row.path !== "/");
  }

  /** Forgets everything about the peer (a new peer: both sides re-seed from scratch). */
  reset(): void {
    for (const table of ALL_TABLES) {
      if (table !== "sync_meta") this.sql.exec(`DELETE FROM ${table}`);
    }
    this.sql.exec("DELETE FROM sync_meta WHERE key <> 'id'");
  }

  /** Drops the sync tables (the computer is deleted). */
  destroy(): void {
    for (const table of ALL_TABLES) this.sql.exec(`DROP TABLE IF EXISTS ${table}`);
  }
}
