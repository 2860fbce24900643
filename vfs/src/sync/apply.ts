/**
 * The write primitives of sync: make a path hold a given state through the public Vfs API.
 * Content is rebuilt chunk by chunk from blobs already stored under their hash, written at
 * the same offsets with pwrite, so the receiver ends up with the very same chunk list (and
 * fingerprint) as the sender, holes included.
 */
import { FsError } from "../errors.ts";
import { CHUNK_SIZE } from "../limits.ts";
import type { Stat } from "../types.ts";
import type { Vfs } from "../vfs.ts";
import type { DirAttributes } from "./local.ts";
import { fromHex, type PathState, readXattrs, sameContent } from "./state.ts";
import type { Xattr } from "./wire.ts";

/** Where a batch's content comes from: blobs stored here, and small ones that came inside the batch. */
export interface BlobSource {
  /** A blob's bytes (the batch's own first); throws when it is missing (the batch then rolls back). */
  read(hash: string): Uint8Array;
  /** True for a blob that came inside the batch and is not stored yet (writing its file stores it). */
  inline(hash: string): boolean;
}

/** The blobs of `vfs`, and `known`: a batch's inline blobs that are verified but not stored. */
export function blobReader(vfs: Vfs, known: ReadonlyMap<string, Uint8Array> = new Map()): BlobSource {
  return {
    read(hash) {
      const data = known.get(hash) ?? vfs.getBlob(hash);
      if (!data) throw new FsError("EINVAL", "sync", undefined, `missing blob ${hash}`);
      return data;
    },
    inline: (hash) => known.has(hash),
  };
}

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
 * The whole content when the chunk list is the plain layout writeFile produces (full chunks,
 * no holes, nothing past the end), so one writeFile recreates the very same chunks.
 */
function plainContent(state: PathState, readBlob: (hash: string) => Uint8Array): Uint8Array | undefined {
  const chunks = state.chunks ?? [];
  const size = state.stat.size;
  if (chunks.length !== Math.ceil(size / CHUNK_SIZE) || chunks.includes("")) return undefined;
  if (chunks.length === 1) {
    const only = readBlob(chunks[0] ?? "");
    return only.length === size ? only : undefined;
  }
  const out = new Uint8Array(size);
  for (const [idx, hash] of chunks.entries()) {
    const data = readBlob(hash);
    if (data.length !== Math.min(CHUNK_SIZE, size - idx * CHUNK_SIZE)) return undefined;
    out.set(data, idx * CHUNK_SIZE);
  }
  return out;
}

/**
 * Rewrites a file's content from its chunk list: same offsets, same chunks, then the exact size.
 * Returns the file's attributes afterwards.
 */
function writeContent(vfs: Vfs, path: string, state: PathState, blobs: BlobSource, fresh: boolean): Stat {
  const chunks = state.chunks ?? [];
  // Every chunk already stored (all but small inline blobs): point the file at them, nothing
  // is read or hashed again and no whole-file buffer is built.
  if (!chunks.some((hash) => hash !== "" && blobs.inline(hash))) {
    return vfs.setChunks(
      path,
      chunks,
      state.stat.size,
      fresh ? { mode: state.stat.mode, exclusive: true } : {},
    );
  }
  const readBlob = (hash: string) => blobs.read(hash);
  const plain = plainContent(state, readBlob);
  if (fresh) {
    const written = vfs.writeFile(path, plain ?? new Uint8Array(0), {
      mode: state.stat.mode,
      exclusive: true,
    });
    if (plain) return written;
  } else if (plain) return vfs.writeFile(path, plain);
  vfs.truncate(path, 0);
  chunks.forEach((hash, idx) => {
    if (hash !== "") vfs.pwrite(path, idx * CHUNK_SIZE, readBlob(hash));
  });
  return vfs.truncate(path, state.stat.size);
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
export function materialize(
  vfs: Vfs,
  path: string,
  state: PathState,
  current: PathState | undefined,
  blobs: BlobSource,
): void {
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
      if (!existing) written = writeContent(vfs, path, state, blobs, true);
      else if (!sameContent(existing, state)) written = writeContent(vfs, path, state, blobs, false);
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
