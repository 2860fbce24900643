/**
 * Typed access to fuse-native 2.2.6 (a CommonJS module without types): the
 * operation signatures it calls, the stat shapes it converts, and a loader.
 * Only the mount backend imports this file, so nothing else needs libfuse.
 *
 * Facts about this version that shape computerd (read from its source):
 * - times cross as milliseconds (stat and utimens): nanoseconds are lost;
 * - utimens passes the access time twice (the modification time never arrives);
 * - the caller's uid/gid (fuse_get_context) are not exposed;
 * - mount options are one "-o" string built by `_fuseOptions()`, which we replace
 *   to add use_ino, big_writes, atomic_o_trunc and the cache timeouts;
 * - every callback result is an errno (negative) or a count (read/write).
 */
import { createRequire } from "node:module";

/** What getattr hands back (times in ms since the epoch). */
export interface NativeStat {
  mode: number;
  uid: number;
  gid: number;
  size: number;
  dev: number;
  nlink: number;
  ino: number;
  rdev: number;
  blksize: number;
  blocks: number;
  atime: number;
  mtime: number;
  ctime: number;
}

/** The statfs fields fuse-native forwards (each a uint32). */
export interface NativeStatfs {
  bsize: number;
  frsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
  favail: number;
  fsid: number;
  flag: number;
  namemax: number;
}

type Done = (result: number) => void;

/** The operations fuse-native calls. Results: 0 or a negative errno; read/write: a byte count. */
export interface NativeOperations {
  getattr(path: string, cb: (err: number, stat?: Partial<NativeStat>) => void): void;
  readdir(path: string, cb: (err: number, names?: string[], stats?: Partial<NativeStat>[]) => void): void;
  access(path: string, mode: number, cb: Done): void;
  statfs(path: string, cb: (err: number, statfs?: NativeStatfs) => void): void;
  open(path: string, flags: number, cb: (err: number, fh?: number) => void): void;
  create(path: string, mode: number, cb: (err: number, fh?: number) => void): void;
  read(path: string, fh: number, buf: Buffer, len: number, pos: number, cb: Done): void;
  write(path: string, fh: number, buf: Buffer, len: number, pos: number, cb: Done): void;
  release(path: string, fh: number, cb: Done): void;
  flush(path: string, fh: number, cb: Done): void;
  fsync(path: string, datasync: number, fh: number, cb: Done): void;
  fsyncdir(path: string, datasync: number, fh: number, cb: Done): void;
  truncate(path: string, size: number, cb: Done): void;
  ftruncate(path: string, fh: number, size: number, cb: Done): void;
  utimens(path: string, atime: number, mtime: number, cb: Done): void;
  readlink(path: string, cb: (err: number, target?: string) => void): void;
  chown(path: string, uid: number, gid: number, cb: Done): void;
  chmod(path: string, mode: number, cb: Done): void;
  mknod(path: string, mode: number, dev: number, cb: Done): void;
  setxattr(path: string, name: string, value: Buffer, position: number, flags: number, cb: Done): void;
  getxattr(path: string, name: string, position: number, cb: (err: number, value?: Buffer) => void): void;
  listxattr(path: string, cb: (err: number, names?: string[]) => void): void;
  removexattr(path: string, name: string, cb: Done): void;
  unlink(path: string, cb: Done): void;
  rename(from: string, to: string, cb: Done): void;
  link(existing: string, path: string, cb: Done): void;
  symlink(target: string, path: string, cb: Done): void;
  mkdir(path: string, mode: number, cb: Done): void;
  rmdir(path: string, cb: Done): void;
}

/** A fuse-native mount. `_fuseOptions` is replaced per instance to pass our options. */
export interface NativeFuse {
  mount(cb: (err: Error | null) => void): void;
  unmount(cb: (err: Error | null) => void): void;
  _fuseOptions(): string;
}

/** The fuse-native module export. */
export interface NativeFuseModule {
  new (
    mountPoint: string,
    ops: Partial<NativeOperations>,
    opts: { timeout: false; mkdir?: boolean },
  ): NativeFuse;
}

/** Loads fuse-native (throws when the module or libfuse.so.2 is missing). */
export function loadFuseNative(): NativeFuseModule {
  const require = createRequire(import.meta.url);
  return require("fuse-native") as NativeFuseModule;
}
