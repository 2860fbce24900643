/**
 * The new nodes of a batch, created together: a path the receiver does not have, whose parent
 * is a real directory (or itself new in the batch), with no base, no hard links and no xattrs,
 * is queued instead of written at once, and the queue goes in one `Vfs.createNodes` (each node
 * with its final owner, mode, times and chunk list) plus one statement for the bases. A batch of
 * new files then costs a few statements per batch instead of ~20 per file. The merge flushes the
 * queue before every change it applies otherwise, so that change sees the tree as if every
 * earlier change had been applied in order.
 */
import type { NewNode } from "../create-nodes.ts";
import type { Stat } from "../types.ts";
import { dirAttributes, type LocalSide } from "./local.ts";
import type { PathState } from "./state.ts";

/** One queued creation with the base it agrees on. */
interface Queued {
  node: NewNode;
  fp: string;
  dir: string | null;
}

/** A queue of new nodes (see the file comment). */
export class NewNodes {
  readonly #local: LocalSide;
  #queued: Queued[] = [];
  /** Queued directories, not created yet. */
  readonly #dirs = new Set<string>();

  constructor(local: LocalSide) {
    this.#local = local;
  }

  /** Whether `path` is a directory queued to be created (nothing exists below it yet). */
  isQueuedDir(path: string): boolean {
    return this.#dirs.has(path);
  }

  /** Queues `state` (with fingerprint `fp`) to be created at `path`. */
  add(path: string, state: PathState, fp: string): void {
    const { stat } = state;
    const node: NewNode = {
      path,
      type: stat.type,
      mode: stat.mode,
      uid: stat.uid,
      gid: stat.gid,
      atime: stat.atime,
      mtime: stat.mtime,
    };
    if (stat.type === "char" || stat.type === "block") node.rdev = stat.rdev;
    if (stat.type === "symlink") node.target = state.target ?? "";
    if (stat.type === "file") {
      node.size = stat.size;
      node.chunks = state.chunks ?? [];
    }
    if (stat.type === "dir") this.#dirs.add(path);
    this.#queued.push({ node, fp, dir: dirAttributes(state) });
  }

  /**
   * Creates everything queued and records the bases; answers the created directories'
   * attributes. `knownDirs`: the batch's real directories already found (path → inode).
   */
  flush(knownDirs?: ReadonlyMap<string, number | undefined>): Map<string, Stat> {
    const queued = this.#queued;
    const dirs = new Map<string, Stat>();
    if (queued.length === 0) return dirs;
    this.#queued = [];
    this.#dirs.clear();
    const stats = this.#local.vfs.createNodes(
      queued.map((q) => q.node),
      knownDirs,
    );
    this.#local.ledger.setBases(queued.map((q) => ({ path: q.node.path, fp: q.fp, dir: q.dir })));
    stats.forEach((stat, i) => {
      if (stat.type === "dir") dirs.set((queued[i] as Queued).node.path, stat);
    });
    return dirs;
  }
}
