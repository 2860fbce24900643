/**
 * Directory times a batch keeps: applying entries stamps "now" on their directory, so the
 * merge remembers what each directory must end with (the sender's times, or its own when the
 * batch did not change it) and gives them back once all entries are in.
 */
import type { InodeTimes } from "../attributes.ts";
import type { Stat } from "../types.ts";
import type { LocalSide } from "./local.ts";
import { readInodes } from "./state.ts";

/** The times `dir` (now `now`) must get back to be `want`: none when it moved, went, or has them. */
export function timesToRestore(
  dir: string,
  want: Stat | undefined,
  now: Stat | undefined,
): InodeTimes | undefined {
  if (!want || !now || now.ino !== want.ino || now.type !== "dir") return undefined;
  const same = (a: Stat["mtime"], b: Stat["mtime"]) => a.sec === b.sec && a.nsec === b.nsec;
  if (same(now.mtime, want.mtime) && same(now.atime, want.atime)) return undefined;
  // By inode: `now` was just read at `dir` (a path walk per directory was a quarter of the
  // DO's time applying an npm install's batches).
  return { ino: now.ino, path: dir, atime: want.atime, mtime: want.mtime };
}

/**
 * Gives every directory in `wanted` its times, in one operation: those whose inode `inoOf`
 * knows are read in one statement, the others with `statOf`. A utimes each was a third of the
 * DO's statements applying an npm install's batches; setting a directory's times changes
 * nothing of its parent's, so the order does not matter.
 */
export function restoreAll(
  local: LocalSide,
  wanted: ReadonlyMap<string, Stat>,
  inoOf: (dir: string) => number | undefined,
  statOf: (dir: string) => Stat | undefined,
): void {
  const known = new Map<string, number>();
  for (const dir of wanted.keys()) {
    const ino = inoOf(dir);
    if (ino !== undefined) known.set(dir, ino);
  }
  const found = readInodes(local.sql, [...known.values()]);
  const restore: InodeTimes[] = [];
  for (const [dir, want] of wanted) {
    const ino = known.get(dir);
    const times = timesToRestore(dir, want, ino === undefined ? statOf(dir) : found.get(ino));
    if (times) restore.push(times);
  }
  local.vfs.utimesInodes(restore);
}
