/**
 * Opens the FUSE loop answered itself (native/fuse3.c ll_open, ll_opendir, ll_releasedir), and
 * lookups of names found (ll_lookup, native/loop-entries.h), handed to the listener as they are,
 * without a request handle, in order: what JS would have done with them but the reply. The loop
 * answers only where JS's answer is certain (computerd/docs/mount.md, "Opens in the loop",
 * "Lookups during npm install"), so here nothing is decided, only registered.
 */
import type { DirHandles } from "./fuse3-dirs.ts";
import { OP } from "./fuse3-native.ts";
import type { NodeTable } from "./fuse3-nodes.ts";
import type { Orphans } from "./fuse3-orphans.ts";
import type { LocalFs } from "./local-fs.ts";
import type { PageCachePolicy } from "./page-cache.ts";

/** The listener's tables a loop-answered open registers in. */
export interface LoopOpenTables {
  fs: LocalFs;
  nodes: NodeTable;
  orphans: Orphans;
  pageCache: PageCachePolicy;
  dirHandles: DirHandles;
}

/**
 * Registers request `op` (with `args` as the addon passes them) if it is one the loop answered:
 * a read-only open ([ino, flags, fh]), an opendir ([ino, fh]), a releasedir ([ino, fh]) or a
 * lookup of a name found ([parent, ino, name]). Answers whether it was.
 */
export function loopOpened(tables: LoopOpenTables, op: number, args: readonly unknown[]): boolean {
  const [ino, second, third] = args as number[];
  switch (op) {
    case OP.open: {
      // The handle the loop numbered: the write-back, the open count that makes an unlink hide
      // the file while it is open, and what the kernel's pages are of.
      const { fs, nodes, orphans, pageCache } = tables;
      fs.openAnswered(ino as number, second as number, third as number);
      orphans.opened(ino as number);
      const path = nodes.pathOf(ino as number);
      const stat = path === undefined ? undefined : fs.lookup(path);
      // The attributes the loop answered from, unless a change behind the mount came between
      // (which notified the kernel).
      if (stat && stat.ino === ino) pageCache.opened(stat, third as number, second as number);
      return true;
    }
    case OP.opendir:
      tables.dirHandles.opened(ino as number, second as number);
      return true;
    case OP.releasedir:
      tables.dirHandles.releasedir(second as number);
      return true;
    case OP.lookup_found:
      // The kernel holds one lookup more of inode `second`, by this name, for its forget.
      tables.nodes.looked(second as number, ino as number, args[2] as string);
      return true;
    default:
      return false;
  }
}
