/**
 * A mkdir the FUSE loop answered (native/loop-changes.c mkdir_here, handed over as OP.mkdir_answered:
 * [parent, mode, ino, sec, nsec, uid, gid, name]): the directory is made as the listener's own
 * mkdir makes one (fuse3-ops.ts OP.mkdir), with exactly the number, owner and time the loop
 * answered, which it also dated its parent with. No reply: the kernel has it.
 */

import type { LoopChangeContext } from "./fuse3-loop-change.ts";
import type { LoopCreates } from "./fuse3-loop-creates.ts";
import type { OwnerMap } from "./owner-map.ts";

/** What it needs of the listener. */
export interface MkdirAnsweredContext extends LoopChangeContext {
  loopCreates: LoopCreates;
  owners: OwnerMap | undefined;
}

/** Makes the directory of the mkdir the loop answered (`a`: the request's numbers and name). */
export function mkdirAnswered(c: MkdirAnsweredContext, a: readonly (number | string | Buffer)[]): void {
  const n = (i: number) => a[i] as number;
  const [parent, mode, ino, name] = [n(0), n(1), n(2), a[7] as string];
  // Its number came from the creates' supply.
  c.loopCreates.answered();
  const caller = { uid: n(5), gid: n(6) };
  const stored = c.owners ? c.owners.fromKernel(caller) : caller;
  const made = { ino, uid: stored.uid, gid: stored.gid, time: { sec: n(3), nsec: n(4) } };
  const path = c.nodes.childPath(parent, name);
  try {
    // The loop answers only while the DO's changes are held (Mount.holdCreates): the name is free.
    if (path === undefined) throw new Error(`no path of #${parent}`);
    // Its parent's attributes in the loop are what this leaves (the loop dated them).
    c.loopAttrs.keeping(parent, () => c.fs.mkdir(path, mode, made));
  } catch (err) {
    c.log(`a mkdir the FUSE loop answered (#${ino} ${name} in #${parent})`, err);
    c.loopAttrs.clear();
    c.loopNames.clear();
    return;
  }
  // The loop holds it with no names already, and has its attributes.
  c.loopNames.madeByLoop(ino);
  c.loopAttrs.putByLoop(ino);
  c.loopNames.added(parent, name, ino);
  c.nodes.looked(ino, parent, name);
  c.changedIn(parent);
}
