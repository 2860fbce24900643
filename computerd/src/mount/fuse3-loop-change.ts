/**
 * What every handler of a change the FUSE loop answered itself needs of the listener
 * (fuse3-loop-answered.ts): the mirror, the node table, and the loop's names and attributes.
 */
import type { ErrorLogger } from "./errno.ts";
import type { LoopAttributes } from "./fuse3-loop-attrs.ts";
import type { LoopNames } from "./fuse3-loop-names.ts";
import type { NodeTable } from "./fuse3-nodes.ts";
import type { LocalFs } from "./local-fs.ts";

export interface LoopChangeContext {
  fs: LocalFs;
  nodes: NodeTable;
  loopNames: LoopNames;
  loopAttrs: LoopAttributes;
  log: ErrorLogger;
  /** The loop answers the next getattr of directory `ino`, whose names changed. */
  changedIn(ino: number): void;
}
