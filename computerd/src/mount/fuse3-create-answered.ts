/**
 * A create the FUSE loop answered (native/loop-creates.h, handed over as OP.create_answered:
 * [parent, mode, flags, ino, fh, sec, nsec, direct, uid, gid, name]): the file it answered is
 * made as the listener's own create makes one (fuse3-ops.ts OP.create), with exactly the number,
 * owner and time the loop answered and the loop's handle. No reply: the kernel has it already.
 */
import { FsError, type MadeAs, type Stat } from "@computer/vfs";
import type { DirectWrites } from "./direct-writes.ts";
import type { LoopChangeContext } from "./fuse3-loop-change.ts";
import type { LoopCreates } from "./fuse3-loop-creates.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";
import type { Orphans } from "./fuse3-orphans.ts";
import type { OwnerMap } from "./owner-map.ts";
import type { PageCachePolicy } from "./page-cache.ts";

/** What it needs of the listener. */
export interface CreateAnsweredContext extends LoopChangeContext {
  loopCreates: LoopCreates;
  orphans: Orphans;
  pageCache: PageCachePolicy;
  directs: DirectWrites;
  owners: OwnerMap | undefined;
  /** The kernel is told that `ino`'s attributes changed behind it. */
  changedBehind(ino: number): void;
  /** Whether removing the name of `stat` would drop a file still open. */
  mustHide(stat: Stat): boolean;
  /** Keeps the open file `stat` (`name` in `parent`) under a hidden name instead. */
  hide(parent: number, name: string, stat: Stat): void;
}

/** Makes the file of the create the loop answered (`a`: the request's numbers and name). */
export function createAnswered(c: CreateAnsweredContext, a: readonly (number | string | Buffer)[]): void {
  const n = (i: number) => a[i] as number;
  const [parent, mode, flags, ino, fh] = [n(0), n(1), n(2), n(3), n(4)];
  c.loopCreates.answered();
  const caller = { uid: n(8), gid: n(9) };
  const stored = c.owners ? c.owners.fromKernel(caller) : caller;
  const made = { ino, uid: stored.uid, gid: stored.gid, time: { sec: n(5), nsec: n(6) } };
  const stat = make(c, parent, a[10] as string, mode, made, fh);
  if (!stat) return;
  c.pageCache.opened(stat, fh, flags);
  c.orphans.opened(ino);
  if (n(7)) c.directs.opened(ino, fh, flags, true);
  c.changedIn(parent);
}

/**
 * Makes the file as `name` in `parent`, where the kernel now has it. The name was missing when
 * the loop answered, and the sync client applies the DO's changes with the loop's creates held
 * (Mount.holdCreates); should a change have brought the name anyway, a file there is replaced
 * (the create came later), and where that cannot be (a directory, or the directory itself
 * went) the file is made under a hidden name, so its handle works until it is released; the
 * kernel shows it by that name until its entry times out. Undefined when not even that could
 * be done (logged).
 */
function make(
  c: CreateAnsweredContext,
  parent: number,
  name: string,
  mode: number,
  made: MadeAs,
  fh: number,
): Stat | undefined {
  const path = c.nodes.childPath(parent, name);
  try {
    if (path === undefined) throw new FsError("ENOENT", "create", `#${parent}/${name}`);
    const there = c.fs.lookup(path);
    if (there && there.type !== "dir") {
      c.loopNames.going(parent, name);
      if (c.mustHide(there)) c.hide(parent, name, there);
      else {
        c.fs.unlink(path);
        c.nodes.unlinked(there.ino, parent, name);
      }
    }
    // Its directory's attributes in the loop are what this leaves (the loop dated them).
    const { stat } = c.loopAttrs.keeping(parent, () => c.fs.create(path, mode, made, fh));
    c.loopAttrs.putByLoop(stat.ino);
    c.loopNames.added(parent, name, stat.ino);
    c.nodes.looked(stat.ino, parent, name);
    return stat;
  } catch (err) {
    if (!(err instanceof FsError)) throw err;
    c.loopNames.going(parent, name);
    const hiddenName = c.orphans.hiddenName(made.ino);
    try {
      const { stat } = c.fs.create(`/${hiddenName}`, mode, made, fh);
      c.loopNames.added(ROOT_INO, hiddenName);
      c.orphans.hide(made.ino, hiddenName);
      c.nodes.looked(made.ino, ROOT_INO, hiddenName);
      c.changedBehind(ROOT_INO);
      return stat;
    } catch (second) {
      c.log(`a create the FUSE loop answered (#${made.ino} ${name} in #${parent})`, second);
      return undefined;
    }
  }
}
