/**
 * @computer/vfs: the filesystem engine of a computer. Runs unchanged on a Durable
 * Object's SQLite (durableObjectSql) and on node:sqlite (nodeSqlite, from ./node.ts).
 */
export type { VfsOptions } from "./context.ts";
export type { NewNode } from "./create-nodes.ts";
export { DirectoryCache } from "./dir-cache.ts";
export { type ErrnoName, errnoOf, LINUX_ERRNO } from "./errno.ts";
export { FS_ERROR_CODES, FsError, type FsErrorCode, isFsError, toFsError } from "./errors.ts";
export { GC_WINDOW_MS, type GcResult } from "./gc.ts";
export {
  CHUNK_SIZE,
  FILE_SIZE_MAX,
  NAME_MAX,
  PATH_MAX,
  SYMLOOP_MAX,
  WORKSPACE,
  XATTR_NAME_MAX,
  XATTR_SIZE_MAX,
} from "./limits.ts";
export type { MadeAs } from "./namespace.ts";
export { byteLength, childPath, joinPath, normalizePath, splitPath } from "./paths.ts";
export { type BlobRef, ChunkUnavailableError, type PlaceholderChunk } from "./placeholders.ts";
export { SCHEMA_VERSION } from "./schema.ts";
export { globToRegExp } from "./search.ts";
export {
  type DurableObjectStorageLike,
  durableObjectSql,
  type SqlLike,
  type SqlRow,
  type SqlValue,
} from "./sql.ts";
export { type ByteSource, byteChunks } from "./streams.ts";
export { fromMs, laterTime, toIso, toMs } from "./time.ts";
export type { TreePage, TreeRecord } from "./transfer.ts";
// Every public type of the filesystem, by name (types.ts holds nothing else; docs/STYLE.md).
export type * from "./types.ts";
export { UsageCache } from "./usage-cache.ts";
export { openVfs, Vfs } from "./vfs.ts";
export type { FileContent } from "./write-files.ts";
export type { XattrFlags } from "./xattrs.ts";
