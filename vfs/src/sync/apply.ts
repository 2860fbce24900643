/**
 * The write primitives of sync: make a path hold a given state through the public Vfs API.
 * Content is the sender's chunk list pointed at blobs already stored under their hash, so the
 * receiver ends up with the very same chunks (and fingerprint) as the sender, holes included.
 * (New nodes of a batch are created together instead: new-nodes.ts.)
 */
import { FsError } from "../errors.ts";
import type { Stat } from "../types.ts";
import type { Vfs } from "../vfs.ts";
import type { DirAttributes } from "./local.ts";
import { fromHex, type PathState, readXattrs, sameContent } from "./state.ts";
import type { Xattr } from "./wire.ts";

/** Removes whatever is at `path` (a directory with everything below it). */
export function removeNode(vfs: Vfs, path: string, current: PathState): void {
  if (current.stat.type === "dir") vfs.rm(path, { recursive: true });
  else vfs.unlink(path);
}

/** True when the node at `path` cannot be turned into `state` in place. */
function mustRecreate(current: PathState, state: PathState): boolean {
  if (current.stat.type !== state.stat.type) return true;
  if (state.stat.type === "symlink") return current.target !== state.target;
  if (state.stat.type === "char" || state.stat.type === "block") return current.stat.rdev !== state.stat.rdev;
  return false;
}

/**
 * Points a file at its chunk list (every blob already stored: Vfs.setChunks), so nothing is read,
 * copied or hashed again and no whole-file buffer is built. Returns the file's attributes.
 */
function writeContent(vfs: Vfs, path: string, state: PathState, fresh: boolean): Stat {
  const options = fresh ? { mode: state.stat.mode, exclusive: true } : {};
  return vfs.setChunks(path, state.chunks ?? [], state.stat.size, options);
}

/** Sets extended attributes to exactly `wanted` (not following a final symlink). */
export function setXattrs(vfs: Vfs, path: string, wanted: Xattr[]): void {
  const present = new Map((readXattrs(vfs, path) ?? []).map((x) => [x.name, x.value]));
  const keep = new Set(wanted.map((x) => x.name));
  for (const name of present.keys()) if (!keep.has(name)) vfs.removexattr(path, name, false);
  for (const x of wanted) {
    const old = present.get(x.name);
    if (!old || old.length !== x.value.length || old.some((b, i) => b !== x.value[i])) {
      vfs.setxattr(path, x.name, x.value, {}, false);
    }
  }
}

/**
 * Owner, mode, xattrs and times of `path` set to those of `state` (in that order: chown clears
 * setuid). `fresh` says the node was just created, so it has no xattrs yet; `known` is its
 * current lstat when the caller has it.
 */
function setAttributes(vfs: Vfs, path: string, state: PathState, fresh: boolean, known?: Stat): void {
  const want = state.stat;
  let now = known ?? vfs.lstat(path);
  if (now.uid !== want.uid || now.gid !== want.gid) {
    vfs.chown(path, want.uid, want.gid, false);
    now = vfs.lstat(path);
  }
  // A symlink's own mode is fixed (chmod would follow it).
  if (want.type !== "symlink" && now.mode !== want.mode) vfs.chmod(path, want.mode);
  if (!fresh || state.xattrs) setXattrs(vfs, path, state.xattrs ?? []);
  const same = (a: typeof want.mtime, b: typeof want.mtime) => a.sec === b.sec && a.nsec === b.nsec;
  // Changing owner, mode or xattrs moves only ctime, so `now` still holds the times.
  if (!same(now.atime, want.atime) || !same(now.mtime, want.mtime)) {
    vfs.utimes(path, want.atime, want.mtime, false);
  }
}

/**
 * Makes `path` hold `state`. Its parent must be a real directory; `current` is what is at
 * `path` now. Anything of another kind is removed first (a directory with all it holds: the
 * caller has made sure nothing unsynced is lost).
 */
export function materialize(vfs: Vfs, path: string, state: PathState, current: PathState | undefined): void {
  let existing = current;
  if (existing && mustRecreate(existing, state)) {
    removeNode(vfs, path, existing);
    existing = undefined;
  }
  const stat = state.stat;
  // The node's attributes once written, when a write returned them (saves a lookup).
  let written: Stat | undefined;
  switch (stat.type) {
    case "dir":
      if (!existing) vfs.mkdir(path, { mode: stat.mode });
      break;
    case "file":
      if (!existing) written = writeContent(vfs, path, state, true);
      else if (!sameContent(existing, state)) written = writeContent(vfs, path, state, false);
      break;
    case "symlink":
      if (!existing) vfs.symlink(state.target ?? "", path);
      break;
    case "fifo":
    case "socket":
    case "char":
    case "block":
      if (!existing) written = vfs.mknod(path, stat.type, stat.mode, stat.rdev);
      break;
    default:
      throw new FsError("EINVAL", "sync", path, `unknown type ${String(stat.type satisfies never)}`);
  }
  setAttributes(vfs, path, state, existing === undefined, written ?? existing?.stat);
}

/** Creates directory `path` with stored attributes (or defaults when there are none). */
export function makeDirectory(vfs: Vfs, path: string, stored: string | null): void {
  if (!stored) {
    vfs.mkdir(path, { mode: 0o755 });
    return;
  }
  const attrs = JSON.parse(stored) as DirAttributes;
  vfs.mkdir(path, { mode: attrs.mode });
  const now = vfs.lstat(path);
  if (now.uid !== attrs.uid || now.gid !== attrs.gid) vfs.chown(path, attrs.uid, attrs.gid, false);
  if (vfs.lstat(path).mode !== attrs.mode) vfs.chmod(path, attrs.mode);
  setXattrs(
    vfs,
    path,
    attrs.xattrs.map(([name, hex]) => ({ name, value: fromHex(hex) })),
  );
}
