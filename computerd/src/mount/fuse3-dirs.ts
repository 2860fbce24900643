/**
 * Open directories of the fuse3 backend: the listing taken at opendir (hidden files left out),
 * served by readdir and readdirplus until releasedir. readdirplus sends each entry's
 * attributes too, so `ls -l`, find, git status and npm need no lookup per name afterwards; the
 * kernel then holds one lookup of every entry sent but "." and "..", which the node table
 * must count for forget to stay right.
 */
import { FsError, type Stat } from "@computer/vfs";
import { TYPE_BITS } from "@computer/vfs/mode-bits";
import type { Fuse3Addon, RequestHandle } from "./fuse3-native.ts";
import { type NodeTable, ROOT_INO } from "./fuse3-nodes.ts";
import type { Orphans } from "./fuse3-orphans.ts";
import type { LocalFs } from "./local-fs.ts";
import { splitParent } from "./meta-cache.ts";

/** What an open directory lists: names with their inodes and type bits, "." and ".." first. */
export interface DirListing {
  names: string[];
  inos: number[];
  modes: number[];
}

/** Bytes of one readdirplus entry (struct fuse_direntplus: 152 bytes, the name, 8-byte aligned). */
export function direntPlusSize(name: string): number {
  return (152 + Buffer.byteLength(name) + 7) & ~7;
}

/** How the directory handlers reach the rest of the listener. */
export interface DirContext {
  addon: Fuse3Addon;
  fs: LocalFs;
  nodes: NodeTable;
  orphans: Orphans;
  /** The kernel's view of `stat` into `into` at `at` (14 numbers). */
  fillAt(into: Float64Array, at: number, stat: Stat): void;
  entryTimeout: number;
  attrTimeout: number;
  /** The entries' attributes as sent (14 numbers each): the loop answers getattrs with them. */
  answered(attrs: Float64Array, count: number): void;
  /** The loop answers getattrs of `ino` with its attributes as cached now (after an atime moved). */
  refresh(ino: number): void;
}

/** The open directories of one mount. */
export class DirHandles {
  private readonly open = new Map<number, DirListing>();
  private next = 1;
  private attrs = new Float64Array(14 * 64);
  private readonly ctx: DirContext;

  constructor(ctx: DirContext) {
    this.ctx = ctx;
  }

  /**
   * opendir of node `ino` at `path`: takes the listing and answers its handle. The kernel keeps
   * the listings it read (FOPEN_CACHE_DIR) until the directory changes (its own changes and the
   * notifications of remote ones drop them); a readdir due to update atime (relatime.ts) must
   * reach us, so then the kept listing goes.
   */
  opendir(req: RequestHandle, ino: number, path: string): void {
    const fh = this.next++;
    this.open.set(fh, this.take(ino, path));
    this.ctx.addon.replyOpen(req, fh, !this.ctx.fs.accessDue(ino, path), true);
  }

  /**
   * An opendir the FUSE loop answered itself with handle `fh` (native/fuse3.c ll_opendir: the
   * directory's attributes were the loop's and its atime not due, so the answer was this
   * class's). Takes the listing that handle reads; a directory removed before this reached us
   * (its rmdir was still queued when the loop answered) lists nothing but "." and "..", as the
   * kernel then refuses to read it anyway.
   */
  opened(ino: number, fh: number): void {
    const path = this.ctx.nodes.pathOf(ino);
    let listing: DirListing | undefined;
    try {
      listing = path === undefined ? undefined : this.take(ino, path);
    } catch {
      listing = undefined;
    }
    this.open.set(
      fh,
      listing ?? { names: [".", ".."], inos: [ino, ino], modes: [TYPE_BITS.dir, TYPE_BITS.dir] },
    );
  }

  /** The listing an opendir of `ino` at `path` takes: "." and ".." first, hidden files left out. */
  private take(ino: number, path: string): DirListing {
    const { fs, orphans } = this.ctx;
    const parentIno = path === "/" ? ROOT_INO : fs.stat(splitParent(path).parent).ino;
    const listing = { names: [".", ".."], inos: [ino, parentIno], modes: [TYPE_BITS.dir, TYPE_BITS.dir] };
    for (const [name, dentry] of fs.readdir(path)) {
      if (orphans.conceals(ino, name)) continue;
      listing.names.push(name);
      listing.inos.push(dentry.ino);
      listing.modes.push(TYPE_BITS[dentry.type]);
    }
    return listing;
  }

  /** Records a listing's access (relatime); a moved atime goes to the loop's table at once. */
  private accessed(ino: number): void {
    if (this.ctx.fs.accessed(ino, this.ctx.nodes.pathOf(ino) ?? "")) this.ctx.refresh(ino);
  }

  private listing(fh: number, ino: number): DirListing {
    const listing = this.open.get(fh);
    if (!listing) throw new FsError("EINVAL", "readdir", `#${ino}`);
    return listing;
  }

  /** readdir: names, inodes and types from `offset` on (the addon packs what fits). */
  readdir(req: RequestHandle, ino: number, fh: number, size: number, offset: number): void {
    const listing = this.listing(fh, ino);
    this.accessed(ino);
    this.ctx.addon.replyDir(req, size, offset, listing.names, listing.inos, listing.modes);
  }

  /**
   * readdirplus: the entries from `offset` that fit `size` bytes, each with its attributes;
   * a name gone since opendir goes without a node (nlink 0), as "." and ".." do. Counts the
   * lookup of each entry the kernel got.
   */
  readdirplus(req: RequestHandle, ino: number, fh: number, size: number, offset: number): void {
    const { fs, nodes, addon } = this.ctx;
    const listing = this.listing(fh, ino);
    this.accessed(ino);
    let end = offset;
    for (let used = 0; end < listing.names.length; end++) {
      used += direntPlusSize(listing.names[end] as string);
      if (used > size) break;
    }
    const names = listing.names.slice(offset, end);
    if (this.attrs.length < names.length * 14) this.attrs = new Float64Array(names.length * 28);
    const attrs = this.attrs;
    const dir = nodes.pathOf(ino);
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const at = i * 14;
      const own = name === "." || name === ".." || dir === undefined;
      const stat = own ? undefined : fs.lookup(dir === "/" ? `/${name}` : `${dir}/${name}`);
      if (stat) this.ctx.fillAt(attrs, at, stat);
      else {
        attrs.fill(0, at, at + 14);
        attrs[at] = listing.inos[offset + i] as number;
        attrs[at + 1] = listing.modes[offset + i] as number;
      }
    }
    this.ctx.answered(attrs, names.length);
    const sent = addon.replyDirPlus(
      req,
      size,
      offset,
      names,
      attrs,
      this.ctx.entryTimeout,
      this.ctx.attrTimeout,
    );
    for (let i = 0; i < sent; i++) {
      if (attrs[i * 14 + 2] !== 0) nodes.looked(attrs[i * 14] as number, ino, names[i] as string);
    }
  }

  releasedir(fh: number): void {
    this.open.delete(fh);
  }
}
