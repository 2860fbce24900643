/**
 * Typed access to computerd's own FUSE 3 addon (computerd/native, the libfuse3
 * low-level API over N-API), the default mount backend. It must be built
 * (`npm run build:native -w computerd`); loadFuse3() returns undefined when it was
 * not, and fuse3Unavailable() says why, for the error the operator sees.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** Request kinds, in the order of `enum op` in native/fuse3.c. */
export const OP = {
  init: 0,
  lookup: 1,
  forget: 2,
  getattr: 3,
  setattr: 4,
  readlink: 5,
  mknod: 6,
  mkdir: 7,
  unlink: 8,
  rmdir: 9,
  symlink: 10,
  rename: 11,
  link: 12,
  open: 13,
  read: 14,
  write: 15,
  flush: 16,
  release: 17,
  fsync: 18,
  opendir: 19,
  readdir: 20,
  releasedir: 21,
  fsyncdir: 22,
  statfs: 23,
  setxattr: 24,
  getxattr: 25,
  listxattr: 26,
  removexattr: 27,
  create: 28,
  exit: 29,
  copy_file_range: 30,
  readdirplus: 31,
  /** A whole-page write the loop already answered (no request handle): buffer it, never refuse it. */
  write_early: 32,
  /** A run of writes the loop answered (no request handle): [ino, fh, offset, sec, nsec, data], dated by its last write. */
  write_run: 33,
  /** A lookup of a name found the loop answered (no request handle): [parent, ino, name]. */
  lookup_found: 34,
  /** A create the loop answered (no request handle): [parent, mode, flags, ino, fh, sec, nsec, direct, uid, gid, name]. */
  create_answered: 35,
  /** An unlink the loop answered (no request handle): [parent, ino, sec, nsec, name]. */
  unlink_answered: 36,
  /** A mkdir the loop answered (no request handle): [parent, mode, ino, sec, nsec, uid, gid, name]. */
  mkdir_answered: 37,
  /** A link the loop answered (no request handle): [ino, newparent, sec, nsec, name]. */
  link_answered: 38,
  /** A read the loop answered moved the file's atime (no request handle): [ino, sec, nsec]. */
  read_answered: 39,
  /**
   * A setattr of times the loop answered (no request handle): [ino, to_set, atime sec, nsec,
   * mtime sec, nsec, ctime sec, nsec].
   */
  setattr_answered: 40,
} as const;

/** Request names by code (the FUSE counters' keys). */
export const OP_NAMES = Object.fromEntries(Object.entries(OP).map(([name, code]) => [code, name])) as Record<
  number,
  string
>;

/** An opaque fuse_req_t; answer it exactly once with one of the reply functions. */
export type RequestHandle = { readonly __fuseRequest: unique symbol };
/** An opaque mounted session. */
export type SessionHandle = { readonly __fuseSession: unique symbol };

/**
 * Called on the JS thread for every request: the op, the request (null for forget and
 * exit, which take no reply), the caller's uid, gid, pid and umask, then the op's
 * numbers, names and data as listed in native/fuse3.c.
 */
export type RequestListener = (
  op: number,
  req: RequestHandle | null,
  uid: number,
  gid: number,
  pid: number,
  umask: number,
  ...args: (number | string | Buffer)[]
) => void;

/**
 * The addon's exports. Attributes cross as a Float64Array of 14: ino, mode, nlink, uid,
 * gid, rdev, size, blocks, atime s, ns, mtime s, ns, ctime s, ns. Reply functions copy
 * what they are given before returning, so buffers may be reused.
 */
export interface Fuse3Addon {
  mount(mountPoint: string, options: string, listener: RequestListener): SessionHandle;
  /**
   * Detaches the mount and ends the request loop; the listener then gets OP.exit. A process
   * holding a file open keeps the connection, so each call also interrupts the loop's read
   * (a real-time signal): call again until OP.exit arrives.
   */
  unmount(session: SessionHandle): void;
  /**
   * After OP.exit: joins the loop thread. libfuse's session is freed once every request
   * handed to the listener has been answered, so a late reply stays safe.
   */
  destroy(session: SessionHandle): void;
  replyErr(req: RequestHandle, errno: number): number;
  replyEntry(req: RequestHandle, attr: Float64Array, entryTimeout: number, attrTimeout: number): number;
  replyCreate(
    req: RequestHandle,
    attr: Float64Array,
    entryTimeout: number,
    attrTimeout: number,
    fh: number,
    /** The handle's reads and writes bypass the page cache (FOPEN_DIRECT_IO): direct-writes.ts. */
    direct?: boolean,
  ): number;
  replyAttr(req: RequestHandle, attr: Float64Array, attrTimeout: number): number;
  /**
   * `cacheDir` (opendir only): the kernel caches the listing it reads (FOPEN_CACHE_DIR) and,
   * with `keepCache`, keeps it across opens until the directory changes. `direct`: as for
   * replyCreate.
   */
  replyOpen(
    req: RequestHandle,
    fh: number,
    keepCache: boolean,
    cacheDir?: boolean,
    direct?: boolean,
    noFlush?: boolean,
  ): number;
  replyBuf(req: RequestHandle, data: Uint8Array, length: number): number;
  replyWrite(req: RequestHandle, count: number): number;
  replyReadlink(req: RequestHandle, target: string): number;
  replyStatfs(req: RequestHandle, fields: Float64Array): number;
  replyXattrSize(req: RequestHandle, size: number): number;
  replyDir(
    req: RequestHandle,
    size: number,
    offset: number,
    names: readonly string[],
    inos: readonly number[],
    modes: readonly number[],
  ): number;
  /**
   * A readdirplus answer: entry i is names[i] with the attributes attrs[14 i .. 14 i + 13] at
   * offset firstIndex + i + 1, as many as fit in `size` bytes. Returns how many went (or a
   * negative errno when the reply failed): the kernel holds one lookup of each of them but
   * "." and ".." and those whose nlink is 0 (a name gone since opendir), sent without a node.
   */
  replyDirPlus(
    req: RequestHandle,
    size: number,
    firstIndex: number,
    names: readonly string[],
    attrs: Float64Array,
    entryTimeout: number,
    attrTimeout: number,
  ): number;
  replyNone(req: RequestHandle): void;
  notifyInvalInode(session: SessionHandle, ino: number): Promise<number>;
  notifyInvalEntry(session: SessionHandle, parent: number, name: string): Promise<number>;
  /**
   * Drops the kernel's cached attributes of `ino` and its cached pages of [offset, offset +
   * length) (length 0: to the end; offset -1: attributes only).
   */
  notifyInvalRange(session: SessionHandle, ino: number, offset: number, length: number): Promise<number>;
  /**
   * Puts `chunks` (the file's bytes from `offset` on, in order) into the kernel's page cache of
   * `ino` (FUSE_NOTIFY_STORE), on the thread pool; the chunks must not change until it settles.
   */
  notifyStore(
    session: SessionHandle,
    ino: number,
    offset: number,
    chunks: readonly Uint8Array[],
  ): Promise<number>;
  /** Every notifyStore on its way stops before its next chunk (its promise then settles). */
  cancelStores(session: SessionHandle): void;
  /**
   * Whether no file has a `security.capability` attribute: then the loop answers the kernel's
   * probe for it (before every write syscall) with ENODATA itself. Off at mount.
   */
  setNoCapabilities(session: SessionHandle, none: boolean): void;
  /**
   * Whether no regular file has setuid or setgid: then a write that asks the daemon to kill
   * them (FUSE_HANDLE_KILLPRIV_V2) may be answered by the loop. Off at mount.
   */
  setNoSetid(session: SessionHandle, none: boolean): void;
  /**
   * Whether FUSE_HANDLE_KILLPRIV_V2 was negotiated (native/kill-priv.h): the kernel probes a
   * file's `security.capability` once, not before every write syscall, and leaves killing
   * setuid/setgid to the daemon (fuse3-kill-priv.ts).
   */
  killPriv(session: SessionHandle): boolean;
  /**
   * Whether every flush (close) must reach the listener (it keeps an error for a close). Off,
   * the loop answers every flush itself (a close stores nothing). On at mount.
   */
  setFlushWanted(session: SessionHandle, wanted: boolean): void;
  /**
   * The current attributes of `count` inodes (attrs[14 i ..]), exactly what a getattr of each
   * answers now: the loop answers the kernel's next getattrs of them itself until dropAttr or
   * clearAttrs. Entries with nlink 0 are skipped; none is taken while an early write is on its
   * way to the listener.
   */
  cacheAttrs(session: SessionHandle, attrs: Float64Array, count: number, attrTimeout: number): void;
  /** Forgets every inode cacheAttrs gave (remote changes). */
  clearAttrs(session: SessionHandle): void;
  /** Forgets one inode cacheAttrs gave (its attributes are about to change). */
  dropAttr(session: SessionHandle, ino: number): void;
  /**
   * Requests the loop answered without the listener: [capability probes, flushes, getattrs,
   * writes joined into runs, lookup misses, opendirs, read-only opens, creates, unlinks, mkdirs, links, reads] (the last seven
   * are handed to the listener without a request, uncounted there).
   */
  loopAnswers(session: SessionHandle): Float64Array;
  /**
   * What the kernel's page cache of `ino` holds now (page-cache.ts: the mtime in ms and the size
   * it last saw); NaN for `mtimeMs`: unknown. The loop answers a read-only open only of a file
   * whose attributes it holds with that mtime and size.
   */
  setPagesSeen(session: SessionHandle, ino: number, mtimeMs: number, size: number): void;
  /**
   * The loop answers the lookup misses of directory `ino`, whose names `names` are, until
   * dropNames or clearNames (native/loop-names.h); `negativeTimeout` is the misses' lifetime.
   */
  holdNames(session: SessionHandle, ino: number, names: string[], negativeTimeout: number): void;
  /** Whether the loop holds directory `ino`'s names (it drops one when another takes its slot). */
  holdsNames(session: SessionHandle, ino: number): boolean;
  /** A request adds `name` to directory `ino` (told before it is answered). */
  addName(session: SessionHandle, ino: number, name: string): void;
  /** The loop no longer answers misses in directory `ino`. */
  dropNames(session: SessionHandle, ino: number): void;
  /** The loop no longer answers misses anywhere (remote changes). */
  clearNames(session: SessionHandle): void;
  /**
   * The listener answers `name` in directory `parent` as inode `ino` (told before it answers):
   * the loop answers the next lookups of it with the attributes it holds of `ino` and hands
   * each to the listener as OP.lookup_found (native/loop-entries.h). Names longer than
   * NAME_MAX are not held.
   */
  putEntry(session: SessionHandle, parent: number, name: string, ino: number, entryTimeout: number): void;
  /** `name` in directory `parent` is about to go or to name another inode. */
  dropEntry(session: SessionHandle, parent: number, name: string): void;
  /** The loop answers no lookup of a name found any more (remote changes). */
  clearEntries(session: SessionHandle): void;
  /**
   * The loop answers the creates of callers whose uid and gid are in [idLo, idHi), where its
   * answer is certain (native/loop-creates.h), and hands each to the listener as
   * OP.create_answered; `direct`: a write-only create opens for direct writes. Off: `enabled` false.
   */
  setLoopCreates(
    session: SessionHandle,
    enabled: boolean,
    idLo: number,
    idHi: number,
    direct: boolean,
    entryTimeout: number,
    attrTimeout: number,
  ): void;
  /**
   * The loop's creates number their files with [first, first + count) (reserved in the vfs):
   * once the range in use is out, or now when it is.
   */
  grantInodes(session: SessionHandle, first: number, count: number): void;
  /** The inode numbers the loop's creates have not taken yet. */
  inodesLeft(session: SessionHandle): number;
  /**
   * Write runs (native/write-run.h): the listener took a whole write through `fh` of `ino`
   * ending at `next`; the loop answers the writes that continue there (within the early writes'
   * granted bytes) and hands each page's worth to the listener as one OP.write_run.
   */
  armWriteRun(session: SessionHandle, ino: number, fh: number, next: number): void;
  /** No write joins a run until the listener arms a handle again (a remote change). */
  disarmWriteRuns(session: SessionHandle): void;
  /** Hands the writes answered into a run to the listener now, queued after every request before. */
  flushWriteRun(session: SessionHandle): void;
  /**
   * Early writes: a write of exactly one whole, aligned 1 MiB page, ending within
   * `fileSizeMax`, is answered by the loop and handed to the listener as OP.write_early while
   * the granted bytes last. Adds `bytes` to them.
   */
  grantWrites(session: SessionHandle, bytes: number, fileSizeMax: number): void;
  /** Takes back the granted bytes early writes have not used; returns how many. */
  revokeWrites(session: SessionHandle): number;
  /** [early writes answered since mount, answered but not yet handled by the listener (with the creates the loop answered)]. */
  earlyWrites(session: SessionHandle): Float64Array;
  /**
   * The buffers this process's loops write into (native/buffer-pool.h): [receive buffers
   * reused from the pool, receive buffers newly allocated, buffers pooled now, write-run pages
   * faulted in at once (a run past RUN_POPULATE_AFTER)].
   */
  receiveBuffers(): Float64Array;
  /**
   * sha-256 (hex) of `bytes` on the thread pool, read in place (WebCrypto copies its input on
   * the calling thread first). Absent when the Node binary exports no OpenSSL SHA256.
   */
  sha256?(bytes: Uint8Array): Promise<string>;
}

/** Where `npm run build:native -w computerd` puts the addon. */
export const FUSE3_ADDON_PATH = fileURLToPath(
  new URL("../../native/build/Release/fuse3.node", import.meta.url),
);

type Loaded = { addon: Fuse3Addon } | { problem: string };
let loaded: Loaded | undefined;

/** Loads the addon at `path` (once per process for the real one), or says why it cannot. */
export function loadFuse3At(path: string): Loaded {
  const build = "build it with `npm run build:native -w computerd` (needs libfuse3-dev and pkg-config)";
  if (!existsSync(path)) return { problem: `computerd's libfuse3 addon is not built (${path}): ${build}` };
  try {
    return { addon: createRequire(import.meta.url)(path) as Fuse3Addon };
  } catch (err) {
    // Built elsewhere, or libfuse3.so.3 (apt libfuse3-3) is missing on this machine.
    return { problem: `computerd's libfuse3 addon does not load (${(err as Error).message}): ${build}` };
  }
}

/** The addon, or undefined when it was not built (or libfuse3 is missing). */
export function loadFuse3(): Fuse3Addon | undefined {
  loaded ??= loadFuse3At(FUSE3_ADDON_PATH);
  return "addon" in loaded ? loaded.addon : undefined;
}

/** Why the fuse3 backend cannot serve here (naming the build command), or undefined when it can. */
export function fuse3Unavailable(): string | undefined {
  loaded ??= loadFuse3At(FUSE3_ADDON_PATH);
  return "problem" in loaded ? loaded.problem : undefined;
}
