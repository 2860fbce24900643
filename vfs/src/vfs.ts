/**
 * The Vfs facade: one object per computer over one SQLite database, exposing
 * every operation. All methods are synchronous except the streams, so a Durable
 * Object can run them without yielding; each mutation is one transaction.
 */

import type { InodeTimes } from "./attributes.ts";
import * as attributes from "./attributes.ts";
import * as checkpoints from "./checkpoints.ts";
import * as content from "./content.ts";
import { Context, type VfsOptions } from "./context.ts";
import { copyRange } from "./copy-range.ts";
import { createNodes, type NewNode, storeBlobs } from "./create-nodes.ts";
import { FsError } from "./errors.ts";
import { exchange } from "./exchange.ts";
import { changes } from "./feed.ts";
import { type GcResult, gc } from "./gc.ts";
import { ROOT_INO } from "./limits.ts";
import * as namespace from "./namespace.ts";
import * as placeholders from "./placeholders.ts";
import { pathsOf, resolveExisting } from "./resolve.ts";
import { migrate, TABLES } from "./schema.ts";
import * as search from "./search.ts";
import type { SqlLike } from "./sql.ts";
import { Store, toStat } from "./store.ts";
import * as streams from "./streams.ts";
import { descendants } from "./subtree.ts";
import * as transfer from "./transfer.ts";
import type {
  ChangesPage,
  CheckpointInfo,
  ContentOptions,
  DirEntry,
  DiskUsage,
  FileType,
  GrepMatch,
  GrepOptions,
  MkdirOptions,
  ReaddirOptions,
  ReaddirPage,
  ReadOptions,
  RenameOptions,
  RmOptions,
  Stat,
  TimeArg,
  Timespec,
  Usage,
  WriteOptions,
} from "./types.ts";
import { type FileContent, writeFiles } from "./write-files.ts";
import * as xattrs from "./xattrs.ts";

/** Opens (creating and migrating as needed) the filesystem stored in `sql`. */
export function openVfs(sql: SqlLike, options: VfsOptions): Vfs {
  migrate(sql);
  const vfs = new Vfs(new Context(new Store(sql, options.directoryCache, options.usageCache), options));
  vfs.ensureRoot();
  return vfs;
}

/** A computer's filesystem. Paths are absolute ("/" is the workspace root). */
export class Vfs {
  private readonly ctx: Context;

  /** @internal Use openVfs(). */
  constructor(ctx: Context) {
    this.ctx = ctx;
  }

  /** @internal Creates the root directory of an empty database. */
  ensureRoot(): void {
    if (this.ctx.store.node(ROOT_INO)) return;
    this.ctx.mutate(() => {
      this.ctx.store.insertNode({ ...this.ctx.newNode("dir", 0o755), ino: ROOT_INO });
      this.ctx.changed("/");
    });
  }

  stat(path: string): Stat {
    return attributes.stat(this.ctx, path, true);
  }
  lstat(path: string): Stat {
    return attributes.stat(this.ctx, path, false);
  }
  exists(path: string): boolean {
    return attributes.exists(this.ctx, path);
  }
  /**
   * The inode of the directory that entry `name` of directory `parent` names, or undefined when
   * it names nothing or no directory (a symlink too). One step of a path walk: free when the
   * directory cache (VfsOptions.directoryCache) knows it, so sync finds a batch's directories
   * without a statement each once an earlier batch found them.
   */
  childDirectory(parent: number, name: string): number | undefined {
    const step = this.ctx.store.lookupStep(parent, name);
    return step?.type === "dir" ? step.ino : undefined;
  }
  readdir(path: string, options?: ReaddirOptions): ReaddirPage {
    return attributes.readdir(this.ctx, path, options);
  }
  /** Every entry of a directory (all pages). */
  list(path: string): DirEntry[] {
    return attributes.readdir(this.ctx, path).entries;
  }
  /** Answers the directory's attributes (a new one's without reading its row back). */
  /** `made`: the directory's number, owner and times as its maker answered them (namespace.MadeAs). */
  mkdir(path: string, options?: MkdirOptions, made?: namespace.MadeAs): Stat {
    return toStat(namespace.mkdir(this.ctx, path, options, made));
  }
  rmdir(path: string): void {
    namespace.rmdir(this.ctx, path);
  }
  unlink(path: string): void {
    namespace.unlink(this.ctx, path);
  }
  rm(path: string, options?: RmOptions): void {
    namespace.rm(this.ctx, path, options);
  }
  /**
   * POSIX rename(2): moves `from` to `to`, atomically replacing a file or an empty directory
   * of the same kind there. With `exchange: true` it is renameat2(RENAME_EXCHANGE): both names
   * must exist and trade inodes atomically, whatever their types (a directory keeps its
   * subtree; neither may lie below the other: EINVAL). Symlinks are never followed in the last
   * position; the feed records both names and every path below a moved directory.
   */
  rename(from: string, to: string, options: RenameOptions = {}): void {
    if (options.exchange) exchange(this.ctx, from, to);
    else namespace.rename(this.ctx, from, to);
  }
  /**
   * Throws exactly what `rename(from, to)` would throw, and changes nothing: for a caller that
   * must do work of its own before a rename (the mount keeps an open file it replaces) only
   * when the rename will succeed.
   */
  checkRename(from: string, to: string): void {
    namespace.checkRename(this.ctx, from, to);
  }
  link(existing: string, newPath: string): void {
    namespace.link(this.ctx, existing, newPath);
  }
  symlink(target: string, path: string): void {
    namespace.symlink(this.ctx, target, path);
  }
  /** `made`: the node's number, owner and times as its maker answered them (namespace.MadeAs). */
  mknod(path: string, type: FileType, mode: number, rdev = 0, made?: namespace.MadeAs): Stat {
    return toStat(namespace.mknod(this.ctx, path, type, mode, rdev, made));
  }
  /** Runs `fn` (operations of this vfs) with every time they stamp being `time` (Context.at). */
  at<T>(time: Timespec, fn: () => T): T {
    return this.ctx.at(time, fn);
  }
  /** Inode numbers no node will take but through `mknod`'s `made` (Store.reserveInodes): the first of `count`. */
  reserveInodes(count: number): number {
    return this.ctx.store.reserveInodes(count);
  }
  readlink(path: string): string {
    return attributes.readlink(this.ctx, path);
  }
  realpath(path: string): string {
    return attributes.realpath(this.ctx, path);
  }
  chmod(path: string, mode: number): void {
    attributes.chmod(this.ctx, path, mode);
  }
  /** chown; `follow: false` is lchown. -1 keeps an id. */
  chown(path: string, uid: number, gid: number, follow = true): void {
    attributes.chown(this.ctx, path, uid, gid, follow);
  }
  utimes(path: string, atime: TimeArg, mtime: TimeArg, follow = true): void {
    attributes.utimes(this.ctx, path, atime, mtime, follow);
  }
  /**
   * utimes of many inodes, each just read at its path: no path walk, one operation, a few
   * statements for all. ENOENT (nothing changed) when one is unknown.
   */
  utimesInodes(items: readonly InodeTimes[]): void {
    attributes.utimesInodes(this.ctx, items);
  }
  /**
   * Stores an access time on inode `ino` without touching ctime, the change feed or the
   * revision (a mount's `relatime` update after a read). ENOENT for an unknown inode.
   */
  recordAccess(ino: number, atime: Timespec): void {
    attributes.recordAccess(this.ctx, ino, atime);
  }
  truncate(path: string, length: number, options?: ContentOptions): Stat {
    return toStat(content.truncate(this.ctx, path, length, options));
  }
  readFile(path: string, options?: ReadOptions): Uint8Array {
    return content.readFile(this.ctx, path, options);
  }
  /** readFile decoded as UTF-8. */
  readText(path: string): string {
    return new TextDecoder().decode(content.readFile(this.ctx, path));
  }
  writeFile(path: string, data: Uint8Array | string, options?: WriteOptions): Stat {
    return toStat(content.writeFile(this.ctx, path, data, options));
  }
  /** The file holds exactly these stored chunks (by hash, "" = hole) and `size` bytes; see content.setChunks. */
  setChunks(path: string, chunks: readonly string[], size: number, options?: WriteOptions): Stat {
    return toStat(content.setChunks(this.ctx, path, chunks, size, options));
  }
  /**
   * Creates many nodes in one operation, each with its final attributes and chunk list (blobs
   * stored already), in a fixed number of statements; parents first. `knownDirs`: real
   * directories (no symlink on the way) the caller has just looked up, path → inode, taken
   * without another lookup. See create-nodes.ts.
   */
  createNodes(nodes: readonly NewNode[], knownDirs?: ReadonlyMap<string, number | undefined>): Stat[] {
    return createNodes(this.ctx, nodes, knownDirs).map(toStat);
  }
  /**
   * Replaces the whole content of many existing files in one operation (one revision), with a
   * fixed number of statements besides one path walk per file; see write-files.ts.
   */
  writeFiles(files: readonly FileContent[]): Stat[] {
    return writeFiles(this.ctx, files).map(toStat);
  }
  pwrite(path: string, offset: number, data: Uint8Array | string, options?: ContentOptions): Stat {
    return toStat(content.pwrite(this.ctx, path, offset, data, options));
  }
  /**
   * copy_file_range(2): copies up to `length` bytes of `from` at `fromOffset` into `to` at
   * `toOffset` (stopping at the source's end) and answers the count, which can be short: call
   * again for the rest. Chunk-aligned ranges share chunks instead of copying bytes.
   */
  copyRange(
    from: string,
    fromOffset: number,
    to: string,
    toOffset: number,
    length: number,
  ): { copied: number; stat: Stat } {
    const { copied, node } = copyRange(this.ctx, from, fromOffset, to, toOffset, length);
    return { copied, stat: toStat(node) };
  }
  appendFile(path: string, data: Uint8Array | string, options?: WriteOptions): Stat {
    return toStat(content.appendFile(this.ctx, path, data, options));
  }
  readStream(path: string, options?: ReadOptions): ReadableStream<Uint8Array> {
    return streams.readStream(this.ctx, path, options);
  }
  async writeStream(path: string, source: streams.ByteSource, options?: WriteOptions): Promise<Stat> {
    return toStat(await streams.writeStream(this.ctx, path, source, options));
  }
  find(path: string, glob: string, limit?: number): string[] {
    return search.find(this.ctx, path, glob, limit);
  }
  grep(path: string, pattern: string, options?: GrepOptions): GrepMatch[] {
    return search.grep(this.ctx, path, pattern, options);
  }
  du(path: string): DiskUsage {
    return search.du(this.ctx, path);
  }
  getxattr(path: string, name: string, follow = true): Uint8Array {
    return xattrs.getxattr(this.ctx, path, name, follow);
  }
  setxattr(
    path: string,
    name: string,
    value: Uint8Array,
    flags: xattrs.XattrFlags = {},
    follow = true,
  ): void {
    xattrs.setxattr(this.ctx, path, name, value, flags, follow);
  }
  /** True when any file has an extended attribute named `name` (a mount answers misses without asking). */
  xattrInUse(name: string): boolean {
    return xattrs.xattrInUse(this.ctx, name);
  }
  /** True when any regular file has setuid or setgid (a mount answers writes without asking while none has). */
  setidInUse(): boolean {
    return (
      this.ctx.store.sql.exec("SELECT 1 FROM nodes WHERE type = 'file' AND mode & 3072 != 0 LIMIT 1").length >
      0
    );
  }
  listxattr(path: string, follow = true): string[] {
    return xattrs.listxattr(this.ctx, path, follow);
  }
  removexattr(path: string, name: string, follow = true): void {
    xattrs.removexattr(this.ctx, path, name, follow);
  }
  usage(): Usage {
    const { used, quota } = this.ctx.store.usage();
    return { usedBytes: used, quotaBytes: quota ?? null };
  }
  /** Sets the quota in bytes (null: unlimited). Lowering it below usage blocks growth, deletes nothing. */
  setQuota(bytes: number | null): void {
    if (bytes !== null && (!Number.isSafeInteger(bytes) || bytes < 0)) {
      throw new FsError("EINVAL", "quota", undefined, "quota must be a non-negative integer or null");
    }
    this.ctx.store.sql.transaction(() => this.ctx.store.setMeta("quota", bytes));
  }
  rev(): number {
    return this.ctx.currentRev();
  }
  /**
   * Calls `listener` whenever an operation takes a new revision: synchronously, while its
   * transaction is still open, so the listener must read the feed from a later task (a
   * microtask suffices on a Durable Object, whose transactions are synchronous). Returns the
   * function that removes it. Live change feeds wait on this instead of polling.
   */
  onRevision(listener: (rev: number) => void): () => void {
    this.ctx.revisionListeners.add(listener);
    return () => this.ctx.revisionListeners.delete(listener);
  }
  /**
   * The change feed after `cursor`. `describe: false`: each change carries only its path and
   * revision (no lookup per entry), for readers that read the states themselves (sync).
   */
  changes(cursor: string, options: { limit?: number; describe?: boolean } = {}): ChangesPage {
    return changes(this.ctx, cursor, options.limit, options.describe ?? true);
  }
  checkpoint(name: string): CheckpointInfo {
    return checkpoints.createCheckpoint(this.ctx, name);
  }
  listCheckpoints(): CheckpointInfo[] {
    return checkpoints.listCheckpoints(this.ctx);
  }
  restoreCheckpoint(name: string): void {
    checkpoints.restoreCheckpoint(this.ctx, name);
  }
  deleteCheckpoint(name: string): void {
    checkpoints.deleteCheckpoint(this.ctx, name);
  }
  exportTree(options?: { checkpoint?: string; after?: string; limit?: number }): transfer.TreePage {
    return transfer.exportTree(this.ctx, options);
  }
  /** Imports exported rows into this tree (meant for a fresh computer); call finishImport() after the last page. */
  importTree(records: transfer.TreeRecord[]): void {
    transfer.importTree(this.ctx, records);
  }
  finishImport(): void {
    transfer.finishImport(this.ctx, () => {
      this.ctx.changed("/");
      for (const entry of descendants(this.ctx, ROOT_INO, "/")) this.ctx.changed(entry.path);
    });
  }
  /** Hashes from `hashes` whose blob this database lacks. */
  missingBlobs(hashes: string[]): string[] {
    return hashes.filter((h) => !this.ctx.store.hasBlob(h));
  }
  /** Bytes of the blob stored under `hash` (without reading it), or undefined. */
  blobSize(hash: string): number | undefined {
    return this.ctx.store.blobSize(hash);
  }
  getBlob(hash: string): Uint8Array | undefined {
    return this.ctx.store.blob(hash);
  }
  /** Stores blobs (each at most a chunk) with a few statements; returns their sha-256s in order. */
  putBlobs(blobs: readonly Uint8Array[]): string[] {
    return storeBlobs(this.ctx, blobs);
  }
  /** Stores a blob; returns its sha-256. */
  putBlob(data: Uint8Array): string {
    return this.ctx.store.sql.transaction(() => content.storeChunk(this.ctx, data));
  }
  /** Records blobs by hash and size whose bytes are still elsewhere (placeholders.ts). */
  putPlaceholders(refs: readonly placeholders.BlobRef[]): void {
    this.ctx.store.sql.transaction(() => placeholders.putPlaceholders(this.ctx, refs));
  }
  /** The chunks of inode `ino` from `first` to `last` (inclusive) whose bytes are not here. */
  placeholderChunks(ino: number, first: number, last: number): placeholders.PlaceholderChunk[] {
    return placeholders.placeholderChunks(this.ctx, ino, first, last);
  }
  /** Every inode with a chunk whose bytes are not here. */
  placeholderInodes(): number[] {
    return placeholders.placeholderInodes(this.ctx);
  }
  /** True when `hash` is known here only by hash and size. */
  isPlaceholder(hash: string): boolean {
    return placeholders.isPlaceholder(this.ctx, hash);
  }
  /** Keeps `hashes` from GC for a peer (until releaseBlobs); answers the hold's sequence number. */
  holdBlobs(hashes: readonly string[]): number {
    return this.ctx.store.sql.transaction(() => placeholders.holdBlobs(this.ctx, hashes));
  }
  /** Ends the holds of `hashes` made at sequence `upTo` or before; answers how many ended. */
  releaseBlobs(hashes: readonly string[], upTo: number): number {
    return this.ctx.store.sql.transaction(() => placeholders.releaseBlobs(this.ctx, hashes, upTo));
  }
  /** Ends every hold (the peer is gone). */
  releaseAllHolds(): void {
    placeholders.releaseAllHolds(this.ctx);
  }
  /** How many blobs are held for a peer. */
  heldBlobs(): number {
    return placeholders.heldBlobs(this.ctx);
  }
  gc(options: { windowMs?: number } = {}): GcResult {
    return gc(this.ctx, options.windowMs);
  }
  /**
   * lstat by inode number, without walking a path (one row); undefined when no such inode
   * exists. For callers that keep their own name → inode map (the mount's listings).
   */
  statInode(ino: number): Stat | undefined {
    const row = Number.isSafeInteger(ino) ? this.ctx.store.node(ino) : undefined;
    return row && toStat(row);
  }
  /**
   * The nodes whose attributes the last operation changed besides what it returns, with their
   * attributes as it left them: the directories whose entries changed (a name added, removed or
   * moved) and a file whose link count a link, unlink or rename moved while other names keep it.
   * A caller that caches attributes refreshes them without reading them again. Only valid right
   * after that operation succeeded.
   */
  touchedNodes(): Stat[] {
    return [...this.ctx.touchedNodes.values()].map(toStat);
  }
  /** Inode attributes of an existing path, for callers that already resolved it. */
  inode(path: string): Stat {
    return toStat(resolveExisting(this.ctx, path, "stat", false).node);
  }
  /**
   * Every path that names inode `ino` (one per hard link), sorted; empty when no name does.
   * Sync uses it to tell the peer which names of a multiply-linked file are one inode.
   */
  namesOf(ino: number): string[] {
    if (!Number.isSafeInteger(ino)) throw new FsError("EINVAL", "names", undefined, `invalid inode ${ino}`);
    if (ino === ROOT_INO) return ["/"];
    return pathsOf(this.ctx, ino).sort();
  }
  /** Drops every table of the filesystem (the computer is deleted). */
  destroy(): void {
    this.ctx.store.forgetCached();
    this.ctx.store.sql.transaction(() => {
      for (const table of TABLES) this.ctx.store.sql.exec(`DROP TABLE IF EXISTS ${table}`);
    });
  }
}
