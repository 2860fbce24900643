/**
 * Reading the states of many paths at once, for the sender building a batch: what readState
 * answers for one path with a lookup per name on the way plus two queries, this answers for a
 * page of the change feed with four statements (entries, chunk lists, xattrs, bases) and one
 * lookup per directory not seen before in the batch. Read below the Vfs API, like state.ts.
 * Valid while nothing changes the tree: one reader serves one synchronous nextBatch.
 */
import { ROOT_INO } from "../limits.ts";
import type { SqlLike } from "../sql.ts";
import { JOINED_COLUMNS, type NodeRow, toStat } from "../store.ts";
import type { Ledger } from "./ledger.ts";
import { baseName, type PathState, parentOf } from "./state.ts";

/** States and bases of paths read in bulk, and the literal directories met on the way. */
export class StateReader {
  readonly #sql: SqlLike;
  readonly #ledger: Ledger;
  /** Directory path → inode, or null when it is no real directory (missing, a file, a symlink). */
  readonly #dirs = new Map<string, number | null>([["/", ROOT_INO]]);
  readonly #states = new Map<string, PathState | undefined>();
  readonly #bases = new Map<string, string>();
  /** Prefetched non-directories with base rows below them. */
  readonly #below = new Set<string>();

  constructor(sql: SqlLike, ledger: Ledger) {
    this.#sql = sql;
    this.#ledger = ledger;
  }

  /** The inode of directory `path` when every name on the way is a real directory (no symlink). */
  #dir(path: string): number | null {
    const known = this.#dirs.get(path);
    if (known !== undefined) return known;
    const parent = this.#dir(parentOf(path));
    let ino: number | null = null;
    if (parent !== null) {
      const row = this.#sql.exec<{ ino: number; type: string }>(
        "SELECT n.ino AS ino, n.type AS type FROM dirents d JOIN nodes n ON n.ino = d.ino WHERE d.parent = ? AND d.name = ?",
        parent,
        baseName(path),
      )[0];
      if (row?.type === "dir") ino = row.ino;
    }
    this.#dirs.set(path, ino);
    return ino;
  }

  /** Reads the states and bases of `paths` not read yet (the root is left to readState). */
  prefetch(paths: readonly string[]): void {
    const wanted = paths.filter((p) => p !== "/" && !this.#states.has(p));
    if (wanted.length === 0) return;
    const keys: [number, string][] = [];
    const byKey = new Map<string, string>();
    for (const path of wanted) {
      this.#states.set(path, undefined);
      const parent = this.#dir(parentOf(path));
      if (parent === null) continue;
      keys.push([parent, baseName(path)]);
      byKey.set(`${parent}/${baseName(path)}`, path);
    }
    const nodes = new Map<number, { path: string; row: NodeRow }[]>();
    if (keys.length > 0) {
      for (const row of this.#sql.exec<NodeRow & { parent: number; name: string }>(
        `SELECT d.parent AS parent, d.name AS name, ${JOINED_COLUMNS} FROM jsonb_each(?) j JOIN dirents d ON d.parent = json_extract(j.value, '$[0]') AND d.name = json_extract(j.value, '$[1]') JOIN nodes n ON n.ino = d.ino`,
        JSON.stringify(keys),
      )) {
        const path = byKey.get(`${row.parent}/${row.name}`);
        if (path === undefined) continue;
        const state: PathState = { stat: toStat(row) };
        if (row.type === "symlink") state.target = row.target ?? "";
        if (row.type === "file") state.chunks = [];
        this.#states.set(path, state);
        const list = nodes.get(row.ino) ?? [];
        list.push({ path, row });
        nodes.set(row.ino, list);
      }
    }
    const inos = JSON.stringify([...nodes.keys()]);
    if (nodes.size > 0) {
      for (const row of this.#sql.exec<{ ino: number; idx: number; hash: string }>(
        "SELECT ino, idx, hash FROM chunks WHERE ino IN (SELECT value FROM json_each(?)) ORDER BY ino, idx",
        inos,
      )) {
        for (const { path } of nodes.get(row.ino) ?? []) {
          const chunks = this.#states.get(path)?.chunks;
          if (!chunks) continue;
          while (chunks.length < row.idx) chunks.push("");
          chunks.push(row.hash);
        }
      }
      for (const row of this.#sql.exec<{ ino: number; name: string; value: Uint8Array }>(
        "SELECT ino, name, value FROM xattrs WHERE ino IN (SELECT value FROM json_each(?)) ORDER BY ino, name",
        inos,
      )) {
        for (const { path } of nodes.get(row.ino) ?? []) {
          const state = this.#states.get(path);
          if (!state) continue;
          state.xattrs ??= [];
          state.xattrs.push({ name: row.name, value: row.value });
        }
      }
    }
    for (const path of wanted) this.#bases.set(path, "");
    for (const row of this.#ledger.bases(wanted)) this.#bases.set(row.path, row.fp);
    const notDirs = wanted.filter((path) => this.#states.get(path)?.stat.type !== "dir");
    for (const path of this.#ledger.withBaseBelow(notDirs)) this.#below.add(path);
  }

  /** False when `path` was prefetched and has no base rows below it (true: it may have some). */
  mayHaveBaseBelow(path: string): boolean {
    return !this.#bases.has(path) || this.#below.has(path);
  }

  /** Whether `path` was prefetched. */
  has(path: string): boolean {
    return this.#states.has(path);
  }

  /** The prefetched state of `path` (call `has` first). */
  state(path: string): PathState | undefined {
    return this.#states.get(path);
  }

  /** The prefetched base fingerprint of `path`, or undefined when it was not prefetched. */
  base(path: string): string | undefined {
    return this.#bases.get(path);
  }
}
