/**
 * Open file handles and the write-back layer: writes land in per-inode
 * DirtyFile pages and reach the vfs on fsync, shortly after the last close (closed
 * files are stored together, in the background), when memory passes a bound, or on
 * flushAll (the sync fence). Reads see dirty pages first, then clean chunks from an LRU, then
 * the vfs. As on a local disk, write() itself answers ENOSPC (quota) and EFBIG;
 * data a flush still cannot store is reported once and dropped, never kept.
 */
import { CHUNK_SIZE, FILE_SIZE_MAX, FsError, laterTime, type Stat, type Vfs } from "@computer/vfs";
import type { ChunkCache } from "./chunk-cache.ts";
import { now } from "./clock.ts";
import { type Digest, DirtyFile, threadPoolDigest } from "./dirty-file.ts";
import type { WriteGrants } from "./early-writes.ts";
import { KeptErrors } from "./kept-errors.ts";
import { OpenHandles } from "./open-handles.ts";
import { type GroupStoreHost, storeClosed } from "./store-groups.ts";
import { StorePaths } from "./store-paths.ts";
import { StoreTarget } from "./store-target.ts";
import { StoredChunks } from "./stored-chunks.ts";
import { type FlushedListener, NO_HOOKS, sameShown, type WriteBackHooks } from "./write-back-hooks.ts";
import { WRITE_BACK_DEFAULTS, type WriteBackOptions } from "./write-back-options.ts";
import { WriteRoom } from "./write-room.ts";

export type { WriteBackOptions } from "./write-back-options.ts";
export { now };

/** Handles, dirty files and clean chunks of one mount. */
export class WriteBack {
  private readonly options: WriteBackOptions;
  private readonly onFlushed: FlushedListener;
  private readonly handles = new OpenHandles();
  private readonly files = new Map<number, DirtyFile>();
  private readonly stored: StoredChunks;
  private readonly chunks: ChunkCache;
  private readonly target: StoreTarget;
  /** Hashes whole pages ahead of storing them (when the mirror takes known hashes). */
  private readonly digest: Digest | undefined;
  private dirtyBytes = 0;
  /** Sum of the dirty files' `growth`: what flushing everything would add to the vfs's used bytes. */
  private dirtyGrowth = 0;
  /** Errors of stores no syscall of the file was waiting for, kept for its next fsync or close. */
  private readonly errors = new KeptErrors();
  /** Whether a close may have work (kept-errors.ts): the FUSE loop answers every other close. */
  readonly closeWork = this.errors.closeWork;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Completed pages waiting to be stored in the background: [ino, page index]. */
  private readonly fullPages: [number, number][] = [];
  private draining = false;
  private quietTimer: ReturnType<typeof setTimeout> | undefined;
  /** The quota's room, with what is set aside for writes the FUSE loop answers early (Mount.setQuota sets the quota here). */
  readonly room: WriteRoom;
  /** Attributes changed by buffered writes and stores (write-back-hooks.ts). */
  hooks: WriteBackHooks = NO_HOOKS;
  /** The names the buffered files are to be stored under, through renames and links. */
  readonly paths = new StorePaths(this.files);

  constructor(vfs: Vfs, onFlushed: FlushedListener, options: Partial<WriteBackOptions> = {}) {
    this.onFlushed = onFlushed;
    this.options = { ...WRITE_BACK_DEFAULTS, ...options };
    this.stored = new StoredChunks(vfs, this.options.chunkCacheBytes);
    this.room = new WriteRoom(vfs, () => this.dirtyGrowth);
    this.chunks = this.stored.cache;
    const known = this.options.knownHashes;
    this.digest = known ? (this.options.digest ?? threadPoolDigest) : undefined;
    this.target = new StoreTarget(vfs, known, this.options.recentBlobs);
  }

  /** Lets the FUSE loop answer whole-page writes early, within room set aside here (early-writes.ts). */
  useEarlyWrites(grants: WriteGrants): void {
    this.room.useEarlyWrites(grants);
  }

  /** Bytes buffered writes will add to the vfs's used bytes once stored (statfs counts them now). */
  get bufferedGrowth(): number {
    return this.dirtyGrowth;
  }

  /** Registers an open file; returns its handle number (never 0). */
  open(ino: number, flags: number, fh?: number): number {
    return this.handles.open(ino, flags, fh);
  }

  /** The inode behind a handle. */
  inoOf(fh: number): number | undefined {
    return this.handles.inoOf(fh);
  }

  isOpen(ino: number): boolean {
    return this.handles.isOpen(ino);
  }

  /**
   * Closes a handle; the last close of a dirty file stores it in the background shortly after
   * (idleFlushMs), together with every other file closed meanwhile.
   */
  release(fh: number): void {
    const last = this.handles.close(fh);
    // No caller waits for the store: a failure is kept for the next fsync or close.
    if (last !== undefined && this.files.has(last)) this.scheduleIdleFlush();
  }

  /**
   * close() of one descriptor (FUSE FLUSH): reports an error kept for the file (a store that
   * failed in the background, a write answered by the FUSE loop that could not be buffered),
   * once. It stores nothing: write() already refused what the quota has no room for, and the
   * file is stored after its last close; fsync and the fence wait for that.
   */
  closeHandle(fh: number): void {
    const ino = this.handles.inoOf(fh);
    if (ino !== undefined) this.errors.report(ino);
  }

  /** Size and times as stat should report them, with unflushed writes applied. */
  overlay(stat: Stat): Stat {
    const file = this.files.get(stat.ino);
    if (!file) return stat;
    // Pages in memory approximate what the flush will allocate (holes stay unallocated).
    const allocated = Math.min(file.size, stat.allocated + file.bytes);
    // A change after the last write (a link) keeps its ctime, as the store will (store-paths.ts).
    return {
      ...stat,
      size: file.size,
      allocated,
      mtime: file.mtime,
      ctime: laterTime(file.mtime, stat.ctime),
    };
  }

  hasDirty(ino: number): boolean {
    return this.files.has(ino);
  }

  private fileFor(ino: number, path: string, storedSize: () => number): DirtyFile {
    let file = this.files.get(ino);
    if (!file) {
      file = new DirtyFile(ino, path, storedSize(), now());
      this.files.set(ino, file);
    } else {
      file.path = path;
    }
    return file;
  }

  /**
   * Buffers a write and answers how many bytes it took. `storedSize` is asked only when the
   * inode has no dirty state yet. Like a local disk, a write that would pass the quota or the
   * largest file size takes what fits (a short count); one that fits nothing is ENOSPC or
   * EFBIG. Pages the write completes are stored in the background, between requests.
   * `handedOver`: the caller never touches `data` again, so whole pages keep it (no copy).
   */
  write(
    ino: number,
    path: string,
    data: Uint8Array,
    offset: number,
    storedSize: () => number,
    handedOver = false,
    at?: Stat["mtime"],
  ): number {
    if (offset + data.length > FILE_SIZE_MAX) {
      if (offset >= FILE_SIZE_MAX) throw new FsError("EFBIG", "write", path);
      data = data.subarray(0, FILE_SIZE_MAX - offset);
    }
    const existed = this.files.has(ino);
    const file = this.fileFor(ino, path, storedSize);
    let extra = file.growthOfWrite(offset, data.length);
    if (this.room.short(extra)) {
      const fit = this.room.longestFit(file, offset, data.length);
      if (fit === 0) {
        if (!existed) this.files.delete(ino);
        throw new FsError("ENOSPC", "write", path);
      }
      data = data.subarray(0, fit);
      extra = file.growthOfWrite(offset, fit);
    }
    const before = file.bytes;
    const full = file.write(offset, data, at ?? now(), handedOver);
    this.hooks.changed(ino);
    this.dirtyBytes += file.bytes - before;
    this.dirtyGrowth += extra;
    if (this.dirtyBytes > this.options.maxDirtyBytes) this.flush(ino);
    else for (const idx of full) this.queuePage(ino, idx);
    // The loop may have run out of room for early writes and write runs (a write that found
    // too little room took the grant back).
    this.room.refillEarly();
    return data.length;
  }

  /**
   * A write the FUSE loop answered already (early-writes.ts): buffered like any. It cannot be
   * refused any more: a failure (the quota shrank meanwhile; what fits is kept) is reported by
   * the file's next fsync or close, as a failed background store is. `at`: its mtime, else now.
   */
  writeAnswered(
    ino: number | undefined,
    path: string,
    data: Uint8Array,
    offset: number,
    size: () => number,
    at?: Stat["mtime"],
  ): void {
    this.room.earlyHandled(data.length);
    try {
      if (ino === undefined) throw new FsError("ENOENT", "write", path, "no open file");
      if (this.write(ino, path, data, offset, size, true, at) < data.length)
        throw new FsError("ENOSPC", "write", path);
    } catch (err) {
      if (ino !== undefined) this.errors.keep(ino, err);
      this.options.log(`a write to ${path} answered early could not be buffered; it is dropped`, err);
    }
    this.room.refillEarly();
  }

  /** A file's buffered bytes by chunk from 0 (dirty pages, cached chunks); undefined unless all are in memory. */
  contentInMemory(ino: number): Uint8Array[] | undefined {
    const file = this.files.get(ino);
    return file?.rangeContent(0, file.size, (i) => this.chunks.get(ino, i));
  }

  /**
   * copy_file_range without storing anything, when it can be done in memory: both offsets
   * chunk-aligned, the source buffered (its dirty pages and cached clean chunks hold the whole
   * range), and a partial last chunk only where it ends the target. The target's pages then
   * share the source's buffers (each side copies a page before changing it); both files are
   * stored later like any write. Answers the bytes copied, or undefined: the caller copies
   * through the vfs instead.
   */
  copyPages(
    source: number,
    from: number,
    target: { ino: number; path: string; offset: number; storedSize: () => number },
    length: number,
  ): number | undefined {
    const src = this.files.get(source);
    const to = target.offset;
    if (!src || source === target.ino || from % CHUNK_SIZE !== 0 || to % CHUNK_SIZE !== 0) return undefined;
    const n = Math.min(length, src.size - from);
    if (n <= 0 || to + n > FILE_SIZE_MAX) return undefined;
    const chunks = src.rangeContent(from, n, (i) => this.chunks.get(source, i));
    if (!chunks) return undefined;
    const existed = this.files.get(target.ino);
    const size = existed ? existed.size : target.storedSize();
    if (n % CHUNK_SIZE !== 0 && to + n < size) return undefined;
    const file = this.fileFor(target.ino, target.path, () => size);
    const extra = file.growthOfWrite(to, n);
    if (this.room.short(extra)) {
      if (!existed) this.files.delete(target.ino);
      return undefined;
    }
    src.share(from, n);
    const before = file.bytes;
    const full = file.putShared(to, chunks, now());
    this.hooks.changed(target.ino);
    this.dirtyBytes += file.bytes - before;
    this.dirtyGrowth += extra;
    if (this.dirtyBytes > this.options.maxDirtyBytes) this.flush(target.ino);
    else for (const idx of full) this.queuePage(target.ino, idx);
    return n;
  }

  /**
   * Queues a completed page. Its store (hash + SQL) waits until writes pause for `quietMs` (the
   * JS thread answers the stream's writes first) or `streamPages` wait (synced: see the option).
   */
  private queuePage(ino: number, idx: number): void {
    this.fullPages.push([ino, idx]);
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    if (this.fullPages.length >= this.options.streamPages) setImmediate(() => this.startDrain());
    else this.quietTimer = setTimeout(() => this.startDrain(true), this.options.quietMs);
  }

  private startDrain(quiet = false): void {
    if (quiet) this.quietTimer = undefined;
    if (this.draining) return;
    this.draining = true;
    this.drainPages();
  }

  /**
   * Stores one queued page, then yields to pending FUSE requests before the next. The page is
   * hashed on the thread pool first (the JS thread answers requests meanwhile).
   */
  private drainPages(): void {
    const next = this.fullPages.shift();
    if (!next || this.quietTimer !== undefined) {
      if (next) this.fullPages.unshift(next);
      this.draining = false;
      return;
    }
    const [ino, idx] = next;
    const file = this.files.get(ino);
    const hashing = this.digest && file?.hashPage(idx, this.digest);
    if (hashing) {
      this.fullPages.unshift(next);
      void hashing.then(() => this.drainPages());
      return;
    }
    if (file) {
      const before = file.bytes;
      const growth = file.growth;
      const shown = this.shown(ino);
      try {
        this.target.begin();
        const data = file.flushPage(idx, this.target);
        if (data) {
          this.chunks.set(ino, idx, data);
          // The stored allocation grew: cached attributes would undercount st_blocks (and cp
          // would take the file for sparse).
          this.onFlushed(ino, this.target.stored(ino));
          this.compareShown(ino, shown);
        }
        this.dirtyBytes += file.bytes - before;
        this.dirtyGrowth += file.growth - growth;
      } catch (err) {
        // Kept, the page would fail every later flush of the file: drop the file's unstored writes.
        this.discard(ino);
        this.hooks.changedByStore(ino);
        this.errors.keep(ino, err);
        this.options.log(`storing page ${idx} of inode ${ino} failed; its unstored writes are dropped`, err);
      }
    }
    setImmediate(() => this.drainPages());
  }

  /** Truncates through the dirty state when the file is open or dirty; false means "do it in the vfs". */
  truncate(ino: number, path: string, length: number, storedSize: () => number): boolean {
    if (!this.files.has(ino) && !this.isOpen(ino)) return false;
    if (length > FILE_SIZE_MAX) throw new FsError("EFBIG", "truncate", path);
    const file = this.fileFor(ino, path, storedSize);
    const before = file.bytes;
    const growth = file.growth;
    file.truncate(length, now());
    this.hooks.changed(ino);
    this.dirtyBytes += file.bytes - before;
    this.dirtyGrowth += file.growth - growth;
    return true;
  }

  /** Reads into `target`; returns the byte count. */
  read(ino: number, path: string, target: Uint8Array, offset: number, length: number): number {
    const file = this.files.get(ino);
    if (file) {
      file.path = path;
      return file.readInto(target, offset, length, this.stored.reader(ino, path));
    }
    return this.stored.readInto(ino, path, target, offset, length);
  }

  /**
   * Writes an inode's dirty state to the vfs (fsync). Throws an error kept from an earlier
   * flush of the inode, or this flush's own; either way the unstored writes are gone
   * afterwards (the vfs keeps what it stored), so no later flush trips over them again.
   */
  flush(ino: number): void {
    this.errors.report(ino);
    const file = this.files.get(ino);
    if (!file) return;
    const shown = this.shown(ino);
    this.forget(ino, file);
    let written: Map<number, Uint8Array>;
    this.target.begin();
    try {
      written = file.flush(this.target, this.stored.reader(ino, file.path));
    } catch (err) {
      // Part of the file may be stored already: cached chunks and attributes are stale.
      this.chunks.dropInode(ino);
      this.onFlushed(ino);
      this.hooks.changedByStore(ino);
      throw err;
    }
    this.storedNow(file, written, this.target.stored(ino), shown);
  }

  /** Drops the dirty state of `file` (being stored or discarded) from the totals. */
  private forget(ino: number, file: DirtyFile): void {
    this.files.delete(ino);
    this.dirtyBytes -= file.bytes;
    this.dirtyGrowth -= file.growth;
  }

  /** After `file` was stored (`written`: its chunks' bytes; `stat`: what the vfs answered). */
  private storedNow(file: DirtyFile, written: Map<number, Uint8Array>, stat?: Stat, shown?: Stat): void {
    const ino = file.ino;
    this.chunks.dropInode(ino);
    // What was just written is exactly what the vfs now stores: let it serve the next reads.
    for (const [idx, data] of written) {
      // A cached chunk shorter than CHUNK_SIZE means end of file, so only whole ones qualify.
      if (data.length === Math.min(CHUNK_SIZE, file.size - idx * CHUNK_SIZE)) this.chunks.set(ino, idx, data);
    }
    this.onFlushed(ino, stat);
    this.compareShown(ino, shown);
  }

  /** What stat answers for `ino` now (undefined when its attributes are not cached). */
  private shown(ino: number): Stat | undefined {
    const cached = this.hooks.cachedStat(ino);
    return cached && this.overlay(cached);
  }
  /** After a store: tells when stat answers other than `before` (or either is unknown). */
  private compareShown(ino: number, before: Stat | undefined): void {
    if (!sameShown(before, this.shown(ino))) this.hooks.changedByStore(ino);
  }

  /**
   * Flushes every dirty file, open or not (the fence); answers how many. Never throws: a file that
   * cannot be stored (ENOSPC) loses its unstored writes and its error waits for the file's next
   * fsync or close, so the fence completes with everything that could be stored.
   */
  flushAll(): number {
    const inos = [...this.files.keys()];
    for (const ino of inos) this.flushDirty(ino);
    return inos.length;
  }

  /**
   * Stores an inode's buffered writes now, before a change that sets its ctime (chmod, chown):
   * the store dates the file's times from its last write. A failure is kept for the file's next
   * fsync or close. (A link needs no store: store-paths.ts.)
   */
  storeBeforeChange(ino: number): void {
    if (this.files.has(ino)) this.flushDirty(ino);
  }

  /** Flushes an inode's dirty state; a failure (or an earlier error) is kept for its next fsync or close. */
  private flushDirty(ino: number): void {
    this.errors.storing(
      ino,
      () => this.flush(ino),
      (err) => this.options.log(`storing inode ${ino} failed; its unstored writes are dropped`, err),
    );
  }

  private flushClosed(): void {
    this.idleTimer = undefined;
    const closed = [...this.files.keys()].filter((ino) => !this.isOpen(ino));
    void this.hashAhead(closed).then(() => storeClosed(closed, this.groupHost));
  }

  /** The background store's side of the write-back (store-groups.ts). */
  private readonly groupHost: GroupStoreHost = {
    isOpen: (ino) => this.isOpen(ino),
    file: (ino) => this.files.get(ino),
    content: (file) =>
      this.errors.has(file.ino) ? undefined : file.newContent(this.stored.reader(file.ino, file.path)),
    shown: (ino) => this.shown(ino),
    writeFiles: (files) => this.target.writeFiles(files),
    stored: (file, data, stat, shown) => {
      this.forget(file.ino, file);
      this.storedNow(file, new Map([[0, data]]), stat, shown);
      this.hooks.stored(file.ino);
    },
    alone: (ino) => {
      this.flushDirty(ino);
      this.hooks.stored(ino);
    },
  };

  /**
   * Hashes the whole pages of the given dirty files (default: all) on the thread pool, so the
   * flushes that follow store them without hashing on the JS thread. Resolves once done.
   */
  async hashAhead(inos: Iterable<number> = this.files.keys()): Promise<void> {
    const digest = this.digest;
    if (!digest) return;
    const hashing = [...inos].flatMap((ino) => this.files.get(ino)?.hashPages(digest) ?? []);
    await Promise.all(hashing);
  }

  private scheduleIdleFlush(): void {
    if (this.idleTimer !== undefined) return;
    this.idleTimer = setTimeout(() => this.flushClosed(), this.options.idleFlushMs);
  }

  /** Forgets an inode's dirty state and cached chunks (its last name is gone). */
  discard(ino: number): void {
    const file = this.files.get(ino);
    if (file) {
      this.forget(ino, file);
      this.hooks.changed(ino);
    }
    this.errors.drop(ino);
    this.chunks.dropInode(ino);
  }

  /** Drops cached clean chunks (content changed outside the mount). */
  dropChunks(ino?: number): void {
    if (ino === undefined) this.chunks.clear();
    else this.chunks.dropInode(ino);
  }

  /** Stops the idle timer (unmount). */
  stop(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.idleTimer = undefined;
    this.quietTimer = undefined;
  }
}
