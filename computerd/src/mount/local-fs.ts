/**
 * The filesystem the mount serves: POSIX operations on canonical paths over the
 * local mirror (a vfs on node:sqlite), with metadata hot in memory (MetaCache)
 * and file data written back lazily (WriteBack). FUSE-independent, so the "none"
 * backend and the unit tests use it directly. Every method is synchronous; a
 * failure throws an FsError, except lookups, which answer a miss with undefined.
 */
import { FsError, type MadeAs, type Stat, type TimeArg, type Timespec, type Vfs } from "@computer/vfs";
import { type Dentry, MetaCache, splitParent } from "./meta-cache.ts";
import { typeOfMode } from "./mknod-type.ts";
import { accessTime, atimeDue } from "./relatime.ts";
import type { RemoteChunks } from "./remote-chunks.ts";
import { type FsStats, statfsOf } from "./statfs.ts";
import { now, WriteBack, type WriteBackOptions } from "./write-back.ts";

/** O_TRUNC (Linux). With atomic_o_trunc, open() carries it instead of a separate truncate. */
const O_TRUNC = 0o1000;

/** Options of a LocalFs. */
export interface LocalFsOptions extends Partial<WriteBackOptions> {
  /** Commits grouped SQL writes (the mirror's BatchedSql.commit). */
  commit?: () => void;
  /**
   * Stores an access time (relatime.ts atimeWriter over the mirror's SQL). Without it an
   * access updates the cached attributes only, and the atime is lost when they are dropped.
   */
  storeAtime?: (ino: number, atime: Timespec) => void;
  /** The clock of access times (default: the clock of buffered writes' mtime). */
  now?: () => Timespec;
}

/** One side of a copyRange: an open handle, the file's path and the offset. */
export interface RangeEnd {
  fh: number;
  path: string;
  offset: number;
}

/** POSIX operations over the mirror, with caches and write-back. */
export class LocalFs {
  readonly vfs: Vfs;
  readonly meta = new MetaCache();
  readonly files: WriteBack;
  /** Where chunks still at the Durable Object come from (the sync client's fetcher), once linked. */
  remoteChunks: RemoteChunks | undefined;
  private readonly commit: () => void;
  private readonly storeAtime: (ino: number, atime: Timespec) => void;
  private readonly now: () => Timespec;
  /**
   * Told before the request that caused it is answered whenever what `stat` answers for an
   * inode (undefined: any) may change. The FUSE loop's attribute table follows it.
   */
  attributesChanged: (ino: number | undefined) => void = () => {};
  /** Told when a store changed what `stat` answers (write-back-hooks.ts): a kernel must drop it. */
  storeChangedAttributes: (ino: number) => void = () => {};
  /** Told when names may have changed behind the mount (invalidate): the FUSE loop's names go. */
  namesChangedBehind: () => void = () => {};
  /** Told when a closed file was stored in the background (its cached attributes are current). */
  attributesStored: (ino: number) => void = () => {};

  constructor(vfs: Vfs, options: LocalFsOptions = {}) {
    this.vfs = vfs;
    this.commit = options.commit ?? (() => {});
    this.storeAtime = options.storeAtime ?? (() => {});
    this.now = options.now ?? now;
    // A store answers the inode's new attributes: kept, the getattr after a close reads no row.
    this.files = new WriteBack(
      vfs,
      (ino, stat) => (stat ? this.meta.setStat(stat) : this.meta.dropStat(ino)),
      options,
    );
    this.meta.onStat = (ino) => this.attributesChanged(ino);
    this.files.hooks = {
      changed: (ino) => this.attributesChanged(ino),
      cachedStat: (ino) => this.meta.stat(ino),
      changedByStore: (ino) => this.storeChangedAttributes(ino),
      stored: (ino) => this.attributesStored(ino),
    };
  }

  /** The complete listing of a directory, loaded once. Throws for a missing or non-directory path. */
  listing(dir: string): Map<string, Dentry> {
    let listing = this.meta.listing(dir);
    if (!listing) {
      listing = new Map();
      for (const entry of this.vfs.readdir(dir).entries)
        listing.set(entry.name, { ino: entry.ino, type: entry.type });
      this.meta.setListing(dir, listing);
    }
    return listing;
  }

  private dentry(path: string): Dentry | undefined {
    if (path === "/") return { ino: 1, type: "dir" };
    const { parent, name } = splitParent(path);
    return this.listing(parent).get(name);
  }

  private attributes(ino: number, path: string): Stat {
    let stat = this.meta.stat(ino);
    if (!stat) {
      // The listing named the inode: one row, no path walk (a stale name still fails by path).
      stat = this.vfs.statInode(ino) ?? this.vfs.lstat(path);
      this.meta.setStat(stat);
    }
    return this.files.overlay(stat);
  }

  /** Calls `use` with the attributes of `ino` if they are cached (buffered writes applied): reads no row. */
  cachedAttributes(ino: number, use: (stat: Stat) => unknown): void {
    const stat = this.meta.stat(ino);
    if (stat) use(this.files.overlay(stat));
  }

  /** lstat, or undefined when the name does not exist. */
  lookup(path: string): Stat | undefined {
    const dentry = this.dentry(path);
    return dentry && this.attributes(dentry.ino, path);
  }

  /** lstat that throws ENOENT. */
  stat(path: string, syscall = "lstat"): Stat {
    const stat = this.lookup(path);
    if (!stat) throw new FsError("ENOENT", syscall, path);
    return stat;
  }

  /** Entries of a directory (without "." and ".."). */
  readdir(path: string): [string, Dentry][] {
    const dentry = this.dentry(path);
    if (!dentry) throw new FsError("ENOENT", "scandir", path);
    if (dentry.type !== "dir") throw new FsError("ENOTDIR", "scandir", path);
    return [...this.listing(path)];
  }

  private added(path: string, stat: Stat): void {
    this.meta.addEntry(path, { ino: stat.ino, type: stat.type });
    this.meta.setStat(stat);
    this.meta.setXattrNames(stat.ino, new Set());
    this.parentsChanged(path);
  }

  /**
   * After a change of names at `paths`: their parents' attributes as the vfs left them (it
   * answers them with the change, so the getattr that follows reads no row), else dropped; the
   * same for a hard-linked file whose link count the change moved.
   */
  private parentsChanged(...paths: string[]): void {
    for (const path of paths) this.meta.dropStatOf(splitParent(path).parent);
    for (const stat of this.vfs.touchedNodes()) this.meta.setStat(stat);
  }

  /**
   * Creates an empty regular file and opens it; returns the handle. A create the FUSE loop
   * answered (native/loop-creates.h) gives the number, owner and time it answered (`made`, the
   * owner as the vfs stores it) and its handle `fh`, of the loop's numbering.
   */
  create(path: string, mode: number, made?: MadeAs, fh?: number): { fh: number; stat: Stat } {
    const stat = this.vfs.mknod(path, "file", mode & 0o7777, 0, made);
    this.added(path, stat);
    return { fh: this.files.open(stat.ino, 0, fh), stat };
  }

  /** Opens an existing file; O_TRUNC truncates it. */
  open(path: string, flags: number): number {
    const stat = this.stat(path, "open");
    if (stat.type === "dir") throw new FsError("EISDIR", "open", path);
    const fh = this.files.open(stat.ino, flags);
    if (flags & O_TRUNC && stat.size > 0) this.truncate(path, 0, fh);
    return fh;
  }

  /** A read-only open of `ino` the FUSE loop answered with a handle of its own numbering, `fh`. */
  openAnswered(ino: number, flags: number, fh: number): void {
    this.files.open(ino, flags, fh);
  }

  read(fh: number, path: string, target: Uint8Array, offset: number, length: number): number {
    const ino = this.files.inoOf(fh) ?? this.stat(path, "read").ino;
    return this.files.read(ino, path, target, offset, length);
  }

  /**
   * Records an access (a read, a readdir, a symlink followed) with the relatime rule: most
   * accesses cost a cached-attribute check; a due one one grouped SQL write. `path` is only
   * needed when the attributes are not cached ("" for a file without a name: then nothing).
   * Answers whether the atime changed. A read the FUSE loop answered brings the atime it set.
   */
  accessed(ino: number, path: string, answered?: Timespec): boolean {
    let stat = this.meta.stat(ino);
    if (!stat) {
      if (path === "") return false;
      stat = this.vfs.statInode(ino);
      if (!stat) return false;
      this.meta.setStat(stat);
    }
    const [current, now] = [this.files.overlay(stat), this.now()];
    const time = answered ?? (atimeDue(current, now) ? accessTime(current, now) : undefined);
    if (!time) return false;
    this.storeAtime(ino, time);
    this.meta.setStat({ ...stat, atime: time });
    return true;
  }

  /** True when the next access of `ino` would update its atime (open drops the page cache then). */
  accessDue(ino: number, path: string): boolean {
    return atimeDue(this.attributes(ino, path), this.now());
  }

  /**
   * Buffers a write; answers the bytes taken (short at the quota). The data is copied, unless
   * `handedOver` says the caller never touches it again (a FUSE request's own buffer).
   */
  write(fh: number, path: string, data: Uint8Array, offset: number, handedOver = false): number {
    const ino = this.files.inoOf(fh) ?? this.stat(path, "write").ino;
    return this.files.write(ino, path, data, offset, () => this.storedSize(ino, path), handedOver);
  }

  /**
   * A whole-page write the FUSE loop has already answered (early-writes.ts): buffered without a
   * copy; a failure is kept for the file's next fsync or close.
   */
  writeAnswered(fh: number, path: string, data: Uint8Array, offset: number, at?: Timespec): void {
    // The kernel writes only through open handles; without one the write has no file.
    const ino = this.files.inoOf(fh);
    this.files.writeAnswered(ino, path, data, offset, () => this.storedSize(ino ?? 0, path), at);
  }

  /**
   * copy_file_range. A source still in memory (just written) is copied there: the target's
   * pages share its buffers, nothing is stored or hashed now. Otherwise in the mirror
   * (chunk-aligned ranges share chunks, so `cp` of a big file is a few rows, not its bytes
   * twice through FUSE), after both files' buffered writes are stored. Answers the bytes
   * copied (short counts: the kernel's caller loops).
   */
  copyRange(from: RangeEnd, to: RangeEnd, length: number): number {
    const source = this.files.inoOf(from.fh) ?? this.stat(from.path, "copy_file_range").ino;
    const target = this.files.inoOf(to.fh) ?? this.stat(to.path, "copy_file_range").ino;
    const storedSize = () => this.storedSize(target, to.path);
    const inMemory = this.files.copyPages(source, from.offset, { ino: target, ...to, storedSize }, length);
    if (inMemory !== undefined) return inMemory;
    this.files.flush(source);
    this.files.flush(target);
    const { copied, stat } = this.vfs.copyRange(from.path, from.offset, to.path, to.offset, length);
    this.files.dropChunks(target);
    this.meta.setStat(stat);
    return copied;
  }

  private storedSize(ino: number, path: string): number {
    const stat = this.meta.stat(ino) ?? this.vfs.statInode(ino) ?? this.vfs.lstat(path);
    return stat.size;
  }

  /** close() of a descriptor: reports an error kept for the file (stores nothing: write-back.ts). */
  flush(fh: number): void {
    this.files.closeHandle(fh);
  }

  release(fh: number): void {
    this.files.release(fh);
  }

  /** Flushes one file's dirty data into the mirror and commits. */
  fsync(fh: number, path: string): void {
    const ino = this.files.inoOf(fh) ?? this.stat(path, "fsync").ino;
    this.files.flush(ino);
    this.commit();
  }

  /**
   * fsync of a directory: its entries are in the vfs as soon as each operation returns, so
   * committing the grouped SQL writes makes them durable.
   */
  fsyncDir(path: string): void {
    this.stat(path, "fsync");
    this.commit();
  }

  /** truncate / ftruncate. */
  truncate(path: string, length: number, fh?: number): void {
    const ino = (fh !== undefined ? this.files.inoOf(fh) : undefined) ?? this.stat(path, "truncate").ino;
    if (this.files.truncate(ino, path, length, () => this.storedSize(ino, path))) return;
    this.meta.setStat(this.vfs.truncate(path, length));
    this.files.dropChunks(ino);
  }

  mkdir(path: string, mode: number, made?: MadeAs): void {
    this.added(path, this.vfs.mkdir(path, { mode: mode & 0o7777 }, made));
    // A new directory is empty: its listing is known without reading it.
    this.meta.dropListing(path);
    this.meta.setListing(path, new Map());
  }

  rmdir(path: string): void {
    const dentry = this.dentry(path);
    this.vfs.rmdir(path);
    this.meta.removeEntry(path);
    this.meta.dropTree(path);
    this.meta.dropStat(dentry?.ino);
    this.parentsChanged(path);
  }

  unlink(path: string): void {
    const stat = this.stat(path, "unlink");
    // Another name keeps the inode: its buffered data must be in the vfs before the name they
    // are to be stored under goes (after a link, store-paths.ts, that is the new name).
    const keptBy = stat.type !== "dir" && stat.nlink > 1;
    if (keptBy && this.files.paths.storesAt(stat.ino, path)) this.files.flush(stat.ino);
    this.vfs.unlink(path);
    // Only once the name is gone: a refused unlink keeps the buffered data.
    if (stat.type !== "dir" && stat.nlink <= 1) this.files.discard(stat.ino);
    this.meta.removeEntry(path);
    this.meta.dropStat(stat.ino);
    this.parentsChanged(path);
  }

  /** POSIX rename, replacing a file or an empty directory. */
  rename(from: string, to: string): void {
    const src = this.stat(from, "rename");
    const dst = this.lookup(to);
    if (dst && dst.ino === src.ino) return;
    if (dst && dst.type !== "dir") {
      if (dst.nlink > 1) this.files.flush(dst.ino);
    }
    this.vfs.rename(from, to);
    if (dst && dst.type !== "dir" && dst.nlink <= 1) this.files.discard(dst.ino);
    const tree = src.type === "dir";
    this.files.paths.renamed(from, to, tree);
    this.meta.removeEntry(from);
    if (tree) {
      this.meta.dropTree(to);
      this.meta.moveTree(from, to);
    }
    this.meta.addEntry(to, { ino: src.ino, type: src.type });
    this.meta.dropStat(src.ino);
    this.meta.dropStat(dst?.ino);
    this.parentsChanged(from, to);
  }

  /** Throws what rename(from, to) would throw; changes nothing (the vfs's checks, on the mirror). */
  checkRename(from: string, to: string): void {
    this.vfs.checkRename(from, to);
  }

  /**
   * renameat2(RENAME_EXCHANGE): `a` and `b` trade inodes (vfs rename with `exchange`).
   * Buffered data stays buffered and follows its inode to the other name.
   */
  exchange(a: string, b: string): void {
    const first = this.stat(a, "rename");
    const second = this.stat(b, "rename");
    this.files.storeBeforeChange(first.ino);
    this.files.storeBeforeChange(second.ino);
    this.vfs.rename(a, b, { exchange: true });
    if (first.ino === second.ino) return;
    // Three moves through a name no path can have (paths never hold NUL) swap the flush paths.
    const aside = "\0exchange";
    this.files.paths.renamed(a, aside, first.type === "dir");
    this.files.paths.renamed(b, a, second.type === "dir");
    this.files.paths.renamed(aside, b, first.type === "dir");
    // Listings below either name would now answer for the other subtree; they refill on demand.
    this.meta.dropTree(a);
    this.meta.dropTree(b);
    this.meta.addEntry(a, { ino: second.ino, type: second.type });
    this.meta.addEntry(b, { ino: first.ino, type: first.type });
    this.meta.dropStat(first.ino);
    this.meta.dropStat(second.ino);
    this.parentsChanged(a, b);
  }

  link(existing: string, path: string): void {
    const src = this.stat(existing, "link");
    this.vfs.link(existing, path);
    // Buffered writes are stored under the new name (git removes the old one next), not before.
    this.files.paths.linked(src.ino, path);
    this.meta.addEntry(path, { ino: src.ino, type: src.type });
    this.meta.dropStat(src.ino);
    this.parentsChanged(path);
  }

  symlink(target: string, path: string): void {
    this.vfs.symlink(target, path);
    this.added(path, this.vfs.lstat(path));
  }

  readlink(path: string): string {
    return this.vfs.readlink(path);
  }

  /** mknod: fifo, socket, devices, or a regular file, by the type bits of `mode`. */
  mknod(path: string, mode: number, rdev: number): void {
    const type = typeOfMode(mode);
    if (!type) throw new FsError("EINVAL", "mknod", path, "unsupported file type");
    this.added(path, this.vfs.mknod(path, type, mode & 0o7777, rdev));
  }

  chmod(path: string, mode: number): void {
    this.files.storeBeforeChange(this.dentry(path)?.ino ?? 0);
    this.vfs.chmod(path, mode & 0o7777);
    this.meta.dropStatOf(path);
  }

  /** lchown; -1 keeps an id. */
  chown(path: string, uid: number, gid: number): void {
    this.files.storeBeforeChange(this.dentry(path)?.ino ?? 0);
    this.vfs.chown(path, uid, gid, false);
    this.meta.dropStatOf(path);
  }

  /**
   * lutimes. Unflushed data goes first, so its flush cannot overwrite the times set here.
   * `changed`: the ctime the FUSE loop answered (fuse3-times-answered.ts); else now.
   */
  utimens(path: string, atime: TimeArg, mtime: TimeArg, changed?: Timespec): void {
    const dentry = this.dentry(path);
    if (dentry && this.files.hasDirty(dentry.ino)) this.files.flush(dentry.ino);
    const set = () => this.vfs.utimes(path, atime, mtime, false);
    changed ? this.vfs.at(changed, set) : set();
    this.meta.dropStat(dentry?.ino);
  }

  private xattrNames(path: string): { ino: number; names: Set<string> } {
    const ino = this.stat(path, "getxattr").ino;
    let names = this.meta.xattrNames(ino);
    if (!names) {
      names = new Set(this.vfs.listxattr(path, false));
      this.meta.setXattrNames(ino, names);
    }
    return { ino, names };
  }

  /**
   * An extended attribute, or undefined when it is not set. The kernel asks for
   * security.capability before every write, so a miss must cost no SQL and no exception.
   */
  getxattr(path: string, name: string): Uint8Array | undefined {
    if (!this.xattrNames(path).names.has(name)) return undefined;
    return this.vfs.getxattr(path, name, false);
  }

  setxattr(
    path: string,
    name: string,
    value: Uint8Array,
    flags: { create?: boolean; replace?: boolean },
  ): void {
    const { ino, names } = this.xattrNames(path);
    this.vfs.setxattr(path, name, value, flags, false);
    names.add(name);
    this.meta.dropStat(ino);
  }

  listxattr(path: string): string[] {
    return [...this.xattrNames(path).names].sort();
  }

  removexattr(path: string, name: string): void {
    const { ino, names } = this.xattrNames(path);
    this.vfs.removexattr(path, name, false);
    names.delete(name);
    this.meta.dropStat(ino);
  }

  /** Capacity from the quota (or DEFAULT_CAPACITY) and the bytes in use, buffered writes included. */
  statfs(): FsStats {
    return statfsOf(this.vfs.usage(), this.files.bufferedGrowth);
  }

  /** Writes all dirty data into the mirror and commits: afterwards the vfs (and its change feed) holds everything. */
  flushAll(): number {
    try {
      return this.files.flushAll();
    } finally {
      this.commit();
    }
  }

  /**
   * Forgets cached metadata and clean chunks for paths changed outside the mount
   * (by the sync client). Listings of each path, its subtree and its parent go;
   * attributes and chunks go wholesale, which is cheap to refill.
   */
  invalidate(paths: readonly string[]): void {
    for (const path of paths) {
      this.meta.dropTree(path);
      if (path !== "/") this.meta.dropListing(splitParent(path).parent);
    }
    this.meta.clearStats();
    this.files.dropChunks();
    this.namesChangedBehind();
  }

  /** Stops background work (before unmount). */
  stop(): void {
    this.files.stop();
  }
}
