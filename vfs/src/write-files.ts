/**
 * Storing the whole content of many existing files in one operation, in a fixed number of
 * statements besides one path walk per file: the shape of the mount's background store, which
 * stores every small file closed in the last 20 ms together (a shell loop's `echo > f$i`, a
 * checkout, an extraction). Each file gets exactly the bytes given, as writeFile would, but the
 * file must exist (as for pwrite): a store never brings back a file removed meanwhile.
 */
import { storeChunk, toBytes } from "./content.ts";
import type { Context } from "./context.ts";
import { storeBlobs } from "./create-nodes.ts";
import { FsError } from "./errors.ts";
import { execRows } from "./json-rows.ts";
import { CHUNK_SIZE, FILE_SIZE_MAX } from "./limits.ts";
import { recordInode, recordPaths, resolveExisting } from "./resolve.ts";
import type { NodeRow } from "./store.ts";
import { contentChangeTime, resolveTime } from "./time.ts";
import type { Timespec } from "./types.ts";

/** One file's new content: its bytes and the mtime (and ctime, time.ts) it gets (default: now). */
export interface FileContent {
  path: string;
  data: Uint8Array | string;
  mtime?: Timespec;
}

/** One file resolved inside the operation, with the chunks its bytes become. */
interface Resolved {
  node: NodeRow;
  path: string;
  chunks: Uint8Array[];
  size: number;
  mtime: Timespec;
  /** ctime: the mtime, or later if the node changed after writes given a time (time.ts). */
  ctime: Timespec;
}

/**
 * Replaces the content of every file in `files` (each an existing regular file, symlinks
 * followed; no inode twice) with its bytes, in one operation (one revision). Fails as pwrite
 * would (ENOENT, EISDIR, EINVAL for a file that is no regular file or appears twice, EFBIG,
 * ENOSPC past the quota) and then changes nothing. Answers each file's new row, in order.
 */
export function writeFiles(ctx: Context, files: readonly FileContent[]): NodeRow[] {
  if (files.length === 0) return [];
  return ctx.mutate(() => {
    const now = ctx.clock();
    const seen = new Set<number>();
    const resolved = files.map((file): Resolved => {
      const bytes = toBytes(file.data);
      const loc = resolveExisting(ctx, file.path, "write", true);
      const node = loc.node;
      if (node.type === "dir") throw new FsError("EISDIR", "write", file.path);
      if (node.type !== "file")
        throw new FsError("EINVAL", "write", file.path, `not a regular file (${node.type})`);
      if (seen.has(node.ino)) throw new FsError("EINVAL", "write", file.path, "the same file twice");
      seen.add(node.ino);
      if (bytes.length > FILE_SIZE_MAX) throw new FsError("EFBIG", "write", file.path);
      const given = file.mtime && resolveTime(file.mtime, now, file.path);
      const mtime = given ?? now;
      const ctime = given ? contentChangeTime(node, given) : now;
      const chunks: Uint8Array[] = [];
      for (let offset = 0; offset < bytes.length; offset += CHUNK_SIZE)
        chunks.push(bytes.subarray(offset, Math.min(bytes.length, offset + CHUNK_SIZE)));
      return { node, path: loc.path, chunks, size: bytes.length, mtime, ctime };
    });
    // One chunk per file stores as one row of a few INSERTs; a bigger file's chunks go one by one.
    const single = resolved.filter((file) => file.chunks.length === 1);
    const hashes = storeBlobs(
      ctx,
      single.map((file) => file.chunks[0] as Uint8Array),
    );
    const chunkRows: [number, number, string, number][] = [];
    single.forEach((file, i) => {
      chunkRows.push([file.node.ino, 0, hashes[i] as string, file.size]);
    });
    for (const file of resolved) {
      if (file.chunks.length <= 1) continue;
      file.chunks.forEach((data, idx) => {
        chunkRows.push([file.node.ino, idx, storeChunk(ctx, data), data.length]);
      });
    }
    execRows(
      ctx,
      "DELETE FROM chunks WHERE ino IN (SELECT value FROM json_each(?))",
      resolved.map((file) => file.node.ino),
    );
    execRows(
      ctx,
      "INSERT INTO chunks (ino, idx, hash, size) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM jsonb_each(?)",
      chunkRows,
    );
    const rows = resolved.map((file) => ({
      ...file.node,
      size: file.size,
      allocated: file.size,
      mtime_s: file.mtime.sec,
      mtime_ns: file.mtime.nsec,
      ctime_s: file.ctime.sec,
      ctime_ns: file.ctime.nsec,
    }));
    execRows(
      ctx,
      "UPDATE nodes SET size = json_extract(j.value, '$[1]'), allocated = json_extract(j.value, '$[1]'), mtime_s = json_extract(j.value, '$[2]'), mtime_ns = json_extract(j.value, '$[3]'), ctime_s = json_extract(j.value, '$[4]'), ctime_ns = json_extract(j.value, '$[5]') FROM jsonb_each(?) AS j WHERE nodes.ino = json_extract(j.value, '$[0]')",
      rows.map((row) => [row.ino, row.size, row.mtime_s, row.mtime_ns, row.ctime_s, row.ctime_ns]),
    );
    const growth = resolved.reduce((sum, file) => sum + file.size - file.node.allocated, 0);
    ctx.charge(growth, "write", resolved[0]?.path ?? "/");
    // Hard-linked files are recorded under every name; the rest, their one path, in one statement.
    const paths: string[] = [];
    rows.forEach((row, i) => {
      const path = resolved[i]?.path as string;
      if (row.nlink > 1) recordInode(ctx, row, path);
      else paths.push(path);
    });
    recordPaths(ctx, paths);
    return rows;
  });
}
