/**
 * The creates the FUSE loop answers itself (native/loop-creates.h): a new file's CREATE no
 * longer waits for this thread. The loop answers only where JS's answer is certain (a name it
 * knows missing, a directory whose attributes it holds, no setid bit) and hands the create on
 * in order; JS then makes the node with exactly the number, owner and time the loop answered.
 *
 * Here: which callers the loop may answer (those whose ids the owner map gives the kernel back,
 * so the new file shows as theirs), and the supply of inode numbers it numbers new files with,
 * reserved in the vfs ahead (Store.reserveInodes): a next range is granted once what the loop
 * has left runs low, used when the current one is out, so new files' numbers follow each other
 * (the loop's attribute table is direct-mapped by inode). A supply the loop exhausts before JS
 * tops it up only sends the next creates to JS.
 */
import type { LocalFs } from "./local-fs.ts";
import { ALL_IDS, type OwnerMap } from "./owner-map.ts";

/** What the loop is told. */
export interface LoopCreateHooks {
  setLoopCreates?(
    enabled: boolean,
    ids: { lo: number; hi: number },
    direct: boolean,
    entryTimeout: number,
    attrTimeout: number,
  ): void;
  grantInodes?(first: number, count: number): void;
  /** The numbers the loop has not taken yet (both ranges). */
  inodesLeft?(): number;
}

/** Inode numbers granted at a time. */
export const INODE_SUPPLY = 1024;
/** A next range is granted when fewer numbers than this are left. */
const LOW = INODE_SUPPLY / 4;
/** How often (creates JS handled) it asks the loop what is left. */
const CHECK_EVERY = 32;

export interface LoopCreateSettings {
  owners?: OwnerMap | undefined;
  /** Whether a write-only create opens for direct writes (direct-writes.ts). */
  direct: boolean;
  entryTimeout: number;
  attrTimeout: number;
}

/** The listener's side of the loop's creates. */
export class LoopCreates {
  private readonly hooks: LoopCreateHooks;
  private readonly fs: LocalFs;
  private readonly settings: LoopCreateSettings;
  private seen = 0;
  private started = false;
  /** Holds (hold()) not yet released: the loop answers no create while there are any. */
  private holds = 0;

  constructor(hooks: LoopCreateHooks, fs: LocalFs, settings: LoopCreateSettings) {
    this.hooks = hooks;
    this.fs = fs;
    this.settings = settings;
  }

  /** Lets the loop answer creates (once the session exists). */
  start(): void {
    if (!this.hooks.setLoopCreates || !this.hooks.grantInodes) return;
    this.started = true;
    this.topUp();
    this.tell();
  }

  /**
   * The loop answers no create until the returned function is called (once; holds nest). The
   * loop turns them off under the lock its creates take their numbers under, and counts each
   * create before it takes one: a fence after this waits for every create it answered.
   */
  hold(): () => void {
    this.holds++;
    if (this.holds === 1) this.tell();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds === 0) this.tell();
    };
  }

  private tell(): void {
    if (!this.started) return;
    const { owners, direct, entryTimeout, attrTimeout } = this.settings;
    const ids = owners?.roundTrip ?? ALL_IDS;
    this.hooks.setLoopCreates?.(this.holds === 0, ids, direct, entryTimeout, attrTimeout);
  }

  /** The loop answered one more create (JS is handling it now). */
  answered(): void {
    if (++this.seen < CHECK_EVERY || !this.started) return;
    this.seen = 0;
    if ((this.hooks.inodesLeft?.() ?? 0) < LOW) this.topUp();
  }

  private topUp(): void {
    this.hooks.grantInodes?.(this.fs.vfs.reserveInodes(INODE_SUPPLY), INODE_SUPPLY);
  }
}
