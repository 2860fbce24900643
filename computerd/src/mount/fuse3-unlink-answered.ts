/**
 * An unlink the FUSE loop answered (native/loop-changes.c unlink_here, handed over as
 * OP.unlink_answered: [parent, ino, sec, nsec, name]): the name goes as the listener's own
 * unlink removes it (fuse3-ops.ts OP.unlink), at exactly the time the loop answered, which it
 * also dated its own attributes of the directory and the file with. No reply: the kernel has it.
 */
import type { Stat, Timespec } from "@computer/vfs";
import type { LoopChangeContext } from "./fuse3-loop-change.ts";

/** What it needs of the listener. */
export interface UnlinkAnsweredContext extends LoopChangeContext {
  /** The loop gets the file's attributes if cached. */
  refresh(ino: number): void;
  /** Whether removing the name of `stat` would drop a file still open. */
  mustHide(stat: Stat): boolean;
  /** Keeps the open file `stat` (`name` in `parent`) under a hidden name instead. */
  hide(parent: number, name: string, stat: Stat): void;
}

/** Removes the name the loop answered the unlink of (`a`: the request's numbers and name). */
export function unlinkAnswered(c: UnlinkAnsweredContext, a: readonly (number | string | Buffer)[]): void {
  const n = (i: number) => a[i] as number;
  const [parent, ino, name] = [n(0), n(1), a[4] as string];
  const time: Timespec = { sec: n(2), nsec: n(3) };
  // The loop dropped the name; a handler before this one may have put it back.
  c.loopNames.going(parent, name);
  const path = c.nodes.childPath(parent, name);
  const stat = path === undefined ? undefined : c.fs.lookup(path);
  if (path === undefined || stat?.ino !== ino) {
    // The loop answers only while the DO's changes are held (Mount.holdCreates), so its name
    // cannot have changed meanwhile: nothing to remove.
    c.log(`an unlink the FUSE loop answered (#${ino} ${name} in #${parent})`, new Error("the name changed"));
    c.changedIn(parent);
    return;
  }
  // The loop's attributes of both are what this leaves (it dated them with `time`).
  const hidden = c.mustHide(stat);
  c.loopAttrs.keeping([parent, ino], () =>
    c.fs.vfs.at(time, () => (hidden ? c.hide(parent, name, stat) : c.fs.unlink(path))),
  );
  if (!hidden) c.nodes.unlinked(ino, parent, name);
  // A file other names keep (git's objects): the loop answers the kernel's next getattr.
  if (stat.nlink > 1) c.refresh(ino);
  c.changedIn(parent);
}
