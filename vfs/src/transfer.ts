/**
 * Moving a whole tree between databases (fork): raw rows of the live tables or of
 * a checkpoint, paged, so hard links, inode numbers and xattrs survive exactly.
 * Blobs travel separately (missingBlobs / getBlob / putBlob) so only what the
 * target lacks moves.
 */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import type { SqlValue } from "./sql.ts";

/** One row of one table. */
export interface TreeRecord {
  table: "nodes" | "dirents" | "chunks" | "xattrs";
  row: Record<string, SqlValue>;
}

export interface TreePage {
  records: TreeRecord[];
  /** Pass back as `after` for the next page; absent on the last page. */
  next?: string;
}

const TABLES = [
  {
    table: "nodes",
    copy: "checkpoint_nodes",
    key: "ino",
    columns:
      "ino, type, mode, uid, gid, nlink, size, rdev, allocated, target, atime_s, atime_ns, mtime_s, mtime_ns, ctime_s, ctime_ns",
  },
  { table: "dirents", copy: "checkpoint_dirents", key: "parent", columns: "parent, name, ino" },
  { table: "chunks", copy: "checkpoint_chunks", key: "ino", columns: "ino, idx, hash, size" },
  { table: "xattrs", copy: "checkpoint_xattrs", key: "ino", columns: "ino, name, value" },
] as const;

/**
 * One page of the tree. Paging walks table by table in rowid-free key order using
 * SQL OFFSET within a table; `after` is "tableIndex:offset".
 */
export function exportTree(
  ctx: Context,
  options: { checkpoint?: string; after?: string; limit?: number } = {},
): TreePage {
  const limit = options.limit ?? 1000;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new FsError("EINVAL", "export", undefined, "bad limit");
  let [tableIndex, offset] = (options.after ?? "0:0").split(":").map(Number) as [number, number];
  if (!Number.isInteger(tableIndex) || !Number.isInteger(offset) || tableIndex < 0 || offset < 0) {
    throw new FsError("EINVAL", "export", undefined, "bad cursor");
  }
  if (
    options.checkpoint !== undefined &&
    ctx.store.sql.exec("SELECT 1 FROM checkpoints WHERE name = ?", options.checkpoint).length === 0
  ) {
    throw new FsError("ENOENT", "export", undefined, `no checkpoint '${options.checkpoint}'`);
  }
  const records: TreeRecord[] = [];
  while (tableIndex < TABLES.length && records.length < limit) {
    const spec = TABLES[tableIndex] as (typeof TABLES)[number];
    const want = limit - records.length;
    const rows =
      options.checkpoint === undefined
        ? ctx.store.sql.exec<Record<string, SqlValue>>(
            `SELECT ${spec.columns} FROM ${spec.table} ORDER BY ${spec.columns} LIMIT ? OFFSET ?`,
            want,
            offset,
          )
        : ctx.store.sql.exec<Record<string, SqlValue>>(
            `SELECT ${spec.columns} FROM ${spec.copy} WHERE cp = ? ORDER BY ${spec.columns} LIMIT ? OFFSET ?`,
            options.checkpoint,
            want,
            offset,
          );
    for (const row of rows) records.push({ table: spec.table, row });
    if (rows.length < want) {
      tableIndex++;
      offset = 0;
    } else {
      offset += rows.length;
    }
  }
  return tableIndex < TABLES.length ? { records, next: `${tableIndex}:${offset}` } : { records };
}

/** Every chunk hash a page references, for the blob transfer. */
export function referencedHashes(page: TreePage): string[] {
  const hashes = new Set<string>();
  for (const r of page.records)
    if (r.table === "chunks" && typeof r.row.hash === "string") hashes.add(r.row.hash);
  return [...hashes];
}

/** Inserts exported rows into this (fresh) tree; call `finishImport` after the last page. */
export function importTree(ctx: Context, records: TreeRecord[]): void {
  ctx.store.forgetCached();
  ctx.store.sql.transaction(() => {
    for (const { table, row } of records) {
      const spec = TABLES.find((t) => t.table === table);
      if (!spec) throw new FsError("EINVAL", "import", undefined, `unknown table ${table}`);
      const columns = spec.columns.split(", ");
      const values = columns.map((c) => row[c] ?? null);
      if (table === "chunks" && !ctx.store.hasBlob(String(row.hash))) {
        throw new FsError("EINVAL", "import", undefined, `blob ${String(row.hash)} missing`);
      }
      ctx.store.sql.exec(
        `INSERT OR REPLACE INTO ${table} (${spec.columns}) VALUES (${columns.map(() => "?").join(", ")})`,
        ...values,
      );
    }
  });
}

/** After an import: recompute used bytes and record every path in the feed. */
export function finishImport(ctx: Context, recordAll: () => void): void {
  ctx.mutate(() => {
    const used =
      ctx.store.sql.exec<{ used: number | null }>("SELECT SUM(allocated) AS used FROM nodes")[0]?.used ?? 0;
    ctx.store.setMeta("used", used);
    recordAll();
  });
}
