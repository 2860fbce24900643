/**
 * Metadata kept hot in memory: complete directory listings (name → inode and
 * type) and inode attributes. A lookup in a listed directory answers a missing
 * name without touching SQLite or building an exception. Every mutation made
 * through the mount updates or drops the entries it affects; changes from
 * elsewhere (the sync client) go through `invalidate`.
 */
import type { FileType, Stat } from "@computer/vfs";

/** One directory entry as the cache keeps it. */
export interface Dentry {
  ino: number;
  type: FileType;
}

/** Parent directory and last name of a canonical absolute path ("/" has no parent). */
export function splitParent(path: string): { parent: string; name: string } {
  const slash = path.lastIndexOf("/");
  return { parent: slash <= 0 ? "/" : path.slice(0, slash), name: path.slice(slash + 1) };
}

/** True when `path` is `dir` or lies under it. */
export function isUnder(path: string, dir: string): boolean {
  if (dir === "/") return true;
  return path === dir || (path.startsWith(dir) && path.charCodeAt(dir.length) === 47);
}

/** Told when an inode's cached attributes are set or dropped (undefined: all of them). */
export type StatListener = (ino: number | undefined) => void;

/** Listings and attributes; both maps are cleared when they pass their bound. */
export class MetaCache {
  private readonly listings = new Map<string, Map<string, Dentry>>();
  private readonly stats = new Map<number, Stat>();
  private readonly xattrs = new Map<number, Set<string>>();
  private listedEntries = 0;
  private readonly maxEntries: number;
  /** Whoever keeps copies of these attributes (the FUSE loop's table, fuse3-loop-attrs.ts). */
  onStat: StatListener = () => {};

  constructor(maxEntries = 500_000) {
    this.maxEntries = maxEntries;
  }

  listing(dir: string): Map<string, Dentry> | undefined {
    return this.listings.get(dir);
  }

  setListing(dir: string, entries: Map<string, Dentry>): void {
    if (this.listedEntries + entries.size > this.maxEntries) this.clearListings();
    this.listings.set(dir, entries);
    this.listedEntries += entries.size;
  }

  /** The dentry of a path if its parent is listed; undefined when unknown. "/" is inode 1. */
  dentry(path: string): Dentry | undefined {
    if (path === "/") return { ino: 1, type: "dir" };
    const { parent, name } = splitParent(path);
    return this.listings.get(parent)?.get(name);
  }

  /** Records a new name (only if the parent is listed: a partial listing would answer misses wrongly). */
  addEntry(path: string, entry: Dentry): void {
    const { parent, name } = splitParent(path);
    const listing = this.listings.get(parent);
    if (!listing) return;
    if (!listing.has(name)) this.listedEntries++;
    listing.set(name, entry);
  }

  removeEntry(path: string): void {
    const { parent, name } = splitParent(path);
    if (this.listings.get(parent)?.delete(name)) this.listedEntries--;
  }

  stat(ino: number): Stat | undefined {
    return this.stats.get(ino);
  }

  setStat(stat: Stat): void {
    if (this.stats.size >= this.maxEntries) {
      this.stats.clear();
      this.onStat(undefined);
    }
    this.stats.set(stat.ino, stat);
    this.onStat(stat.ino);
  }

  dropStat(ino: number | undefined): void {
    if (ino === undefined) return;
    this.stats.delete(ino);
    this.onStat(ino);
  }

  /** The names of an inode's extended attributes, if known. */
  xattrNames(ino: number): Set<string> | undefined {
    return this.xattrs.get(ino);
  }

  setXattrNames(ino: number, names: Set<string>): void {
    if (this.xattrs.size >= this.maxEntries) this.xattrs.clear();
    this.xattrs.set(ino, names);
  }

  dropXattrNames(ino: number | undefined): void {
    if (ino !== undefined) this.xattrs.delete(ino);
  }

  /** Drops the inode of `path` if known (cheap: never loads anything). */
  dropStatOf(path: string): void {
    this.dropStat(this.dentry(path)?.ino);
  }

  /** Moves the listings of a renamed directory tree from `from` to `to`. */
  moveTree(from: string, to: string): void {
    const moved: [string, Map<string, Dentry>][] = [];
    for (const [dir, listing] of this.listings) {
      if (isUnder(dir, from)) moved.push([dir, listing]);
    }
    for (const [dir] of moved) this.listings.delete(dir);
    for (const [dir, listing] of moved) this.listings.set(to + dir.slice(from.length), listing);
  }

  /** Forgets the listing of `dir` and of everything under it. */
  dropTree(dir: string): void {
    for (const [key, listing] of this.listings) {
      if (isUnder(key, dir)) {
        this.listedEntries -= listing.size;
        this.listings.delete(key);
      }
    }
  }

  /** Forgets one directory's listing. */
  dropListing(dir: string): void {
    const listing = this.listings.get(dir);
    if (!listing) return;
    this.listedEntries -= listing.size;
    this.listings.delete(dir);
  }

  /** Forgets all attributes and xattr names (listings stay). */
  clearStats(): void {
    this.stats.clear();
    this.xattrs.clear();
    this.onStat(undefined);
  }

  clearListings(): void {
    this.listings.clear();
    this.listedEntries = 0;
  }

  clear(): void {
    this.clearListings();
    this.clearStats();
  }
}
