/**
 * A link the FUSE loop answered (native/loop-changes.c link_here, handed over as OP.link_answered:
 * [ino, newparent, sec, nsec, name]): the new name is made as the listener's own link makes it
 * (fuse3-ops.ts OP.link), at exactly the time the loop answered, which it also dated its own
 * attributes of the directory and the file with. No reply: the kernel has it.
 */
import type { Timespec } from "@computer/vfs";
import type { LoopChangeContext } from "./fuse3-loop-change.ts";

/** Makes the name the loop answered the link of (`a`: the request's numbers and name). */
export function linkAnswered(c: LoopChangeContext, a: readonly (number | string | Buffer)[]): void {
  const n = (i: number) => a[i] as number;
  const [ino, parent, name] = [n(0), n(1), a[4] as string];
  const time: Timespec = { sec: n(2), nsec: n(3) };
  const [from, to] = [c.nodes.pathOf(ino), c.nodes.childPath(parent, name)];
  try {
    // The loop answers only while the DO's changes are held (Mount.holdCreates): the file is
    // where the node table says and the name is free.
    if (from === undefined || to === undefined) throw new Error(`no path of #${ino} or #${parent}`);
    // The loop's attributes of both are what this leaves (it dated them with `time`).
    c.loopAttrs.keeping([parent, ino], () => c.fs.vfs.at(time, () => c.fs.link(from, to)));
  } catch (err) {
    c.log(`a link the FUSE loop answered (#${ino} as ${name} in #${parent})`, err);
    c.loopAttrs.clear();
    c.loopNames.clear();
    return;
  }
  c.loopNames.added(parent, name, ino);
  c.nodes.looked(ino, parent, name);
  c.changedIn(parent);
}
