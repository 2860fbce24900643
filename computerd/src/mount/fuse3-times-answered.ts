/**
 * A setattr of times the FUSE loop answered (native/loop-changes.c times_here, handed over as
 * OP.setattr_answered: [ino, to_set, atime sec, nsec, mtime sec, nsec, ctime sec, nsec]): the
 * times are set as the listener's own setattr sets them (fuse3-setattr.ts, LocalFs.utimens), to
 * exactly the times the loop answered (its clock for "now") and with its ctime, which it also
 * keeps in its own attributes. No reply: the kernel has it. `touch` of an existing file, or of
 * one it just created, waits for no JS.
 */
import type { TimeArg, Timespec } from "@computer/vfs";
import type { LoopChangeContext } from "./fuse3-loop-change.ts";
import { SET_ATIME, SET_ATIME_NOW, SET_MTIME, SET_MTIME_NOW } from "./fuse3-setattr.ts";
import type { PageCachePolicy } from "./page-cache.ts";

type Numbers8 = readonly [number, number, number, number, number, number, number, number];

/** What it needs of the listener. */
export interface TimesAnsweredContext extends LoopChangeContext {
  pageCache: PageCachePolicy;
  /** The kernel is told that `ino`'s attributes changed behind it. */
  changedBehind(ino: number): void;
}

/** Sets the times the loop answered the setattr with (`a`: the request's numbers). */
export function timesAnswered(c: TimesAnsweredContext, a: readonly (number | string | Buffer)[]): void {
  const [ino, toSet, atimeSec, atimeNsec, mtimeSec, mtimeNsec, sec, nsec] =
    a as readonly number[] as Numbers8;
  const set = (bits: number, time: Timespec): TimeArg => (toSet & bits ? time : "omit");
  const atime = set(SET_ATIME | SET_ATIME_NOW, { sec: atimeSec, nsec: atimeNsec });
  const mtime = set(SET_MTIME | SET_MTIME_NOW, { sec: mtimeSec, nsec: mtimeNsec });
  const path = c.nodes.pathOf(ino);
  try {
    if (path === undefined) throw new Error("its path is not known");
    // The loop's attributes of it are what this leaves (it dated the change with its ctime);
    // times the kernel set are what it shows (as after the listener's own setattr).
    c.loopAttrs.keeping(ino, () => {
      c.fs.utimens(path, atime, mtime, { sec, nsec });
      const stat = c.fs.lookup(path);
      if (stat) c.pageCache.changedByKernel(stat);
    });
  } catch (err) {
    // What the loop answered is not what the mirror has: its attributes go, and the kernel's.
    c.log(`a setattr the FUSE loop answered (#${ino})`, err);
    c.loopAttrs.drop(ino);
    c.changedBehind(ino);
  }
}
