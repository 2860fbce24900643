/**
 * Hard links across sync, like `rsync -H`: a change of a multiply-linked non-directory names the
 * sender's other names of its inode (`SyncChange.links`), and the receiver gives the path the
 * inode of one of its own names that already holds exactly the incoming state (its "holder")
 * instead of writing a separate copy. A write or attribute change through a path never reaches
 * local names of its inode that the sender does not list as sharing it ("strangers"): the path
 * is detached from them first, so a link is never formed, nor kept, between unrelated files.
 */
import { removeNode } from "./apply.ts";
import type { LocalSide } from "./local.ts";
import type { PathState } from "./state.ts";
import type { SyncChange } from "./wire.ts";

/** True for a non-directory with more than one name. */
export function isLinked(state: PathState | undefined): state is PathState {
  return state !== undefined && state.stat.type !== "dir" && state.stat.nlink > 1;
}

/** The sender's other names of the inode at `path`, sorted (undefined when it has only one). */
export function otherNames(
  local: LocalSide,
  path: string,
  state: PathState | undefined,
): string[] | undefined {
  if (!isLinked(state)) return undefined;
  const names = local.vfs.namesOf(state.stat.ino).filter((name) => name !== path);
  return names.length > 0 ? names : undefined;
}

/** True when the change or the local node involves a hard link, so `settleLink` has work to check. */
export function involvesLinks(change: SyncChange, current: PathState | undefined): boolean {
  if (change.stat?.type === "dir") return false;
  return (change.links?.length ?? 0) > 0 || isLinked(current);
}

/**
 * Gives `path` the incoming state with fingerprint `fp` and the inode the sender's group says.
 * Returns true when that regrouped names beyond what the change describes: the path already
 * held the state and moved, left an inode with strangers, or other names joined it (the caller
 * then leaves the path for its next scan to send back, see merge.ts). `current`: the local node at
 * `path`; `holds`: it already has fingerprint `fp`; `write(now)` makes the path hold the state
 * from what is there now (undefined: nothing). The group is the path and `change.links`.
 *
 * The holder is the first name of the group (sorted) that holds the state on an inode without
 * strangers (the path itself counting); every name of a group picks the same one in whatever
 * order they arrive. The path takes the holder's inode; without a holder it is written on its
 * own inode, or on a fresh one when its inode has strangers. Then every other name of the group
 * that holds the state joins it, so a group is whole even when some of its names are not sent.
 */
export function settleLink(
  local: LocalSide,
  change: SyncChange,
  fp: string,
  current: PathState | undefined,
  holds: boolean,
  write: (now: PathState | undefined) => void,
): boolean {
  const path = change.path;
  const group = new Set([path, ...(change.links ?? [])]);
  const names = [...group].sort();
  const tainted = new Map<number, boolean>();
  const hasStrangers = (state: PathState): boolean => {
    if (!isLinked(state)) return false;
    let answer = tainted.get(state.stat.ino);
    if (answer === undefined) {
      answer = local.vfs.namesOf(state.stat.ino).some((name) => !group.has(name));
      tainted.set(state.stat.ino, answer);
    }
    return answer;
  };
  /** Other names of the group that hold the state locally. */
  const holding = new Map<string, PathState>();
  for (const name of names) {
    if (name === path) continue;
    const there = local.read(name);
    if (there && there.stat.type !== "dir" && local.fp(there) === fp) holding.set(name, there);
  }
  let holder: string | undefined;
  for (const name of names) {
    const state = name === path ? (holds ? current : undefined) : holding.get(name);
    if (state && !hasStrangers(state)) {
      holder = name;
      break;
    }
  }
  let regrouped = false;
  /** Names left on an inode a name of the group leaves (their group changes too). */
  const leftBehind = new Set<string>();
  const leave = (name: string, state: PathState | undefined): void => {
    if (!isLinked(state)) return;
    for (const other of local.vfs.namesOf(state.stat.ino)) if (other !== name) leftBehind.add(other);
  };
  let ino: number;
  const chosen = holder === undefined || holder === path ? undefined : holding.get(holder);
  if (holder !== undefined && chosen) {
    ino = chosen.stat.ino;
    if (current?.stat.ino !== ino) {
      leave(path, current);
      if (current) removeNode(local.vfs, path, current);
      local.vfs.link(holder, path);
      regrouped = holds;
    }
  } else if (holder === path && current) {
    ino = current.stat.ino;
  } else {
    let now = current;
    if (now && hasStrangers(now)) {
      // Writing in place would change local names the sender does not link to this one.
      leave(path, now);
      local.vfs.unlink(path);
      now = undefined;
      regrouped = true;
    }
    write(now);
    ino = local.vfs.lstat(path).ino;
  }
  for (const [name, state] of holding) {
    if (state.stat.ino === ino) continue;
    leave(name, state);
    local.vfs.unlink(name);
    local.vfs.link(path, name);
    regrouped = true;
  }
  markLeftBehind(local, leftBehind, ino);
  return regrouped;
}

/**
 * Marks for re-sending the names a regrouping left on another inode than the group's (`ino`):
 * their group changed though no change named them, and a crossing batch may have told the peer
 * the group they had before (both sides would otherwise keep different groups for good).
 */
function markLeftBehind(local: LocalSide, names: ReadonlySet<string>, ino: number): void {
  for (const name of names) {
    const state = local.read(name);
    if (state && state.stat.ino !== ino) local.ledger.markDirty(name);
  }
}
