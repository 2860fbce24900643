/**
 * The small asynchronous filesystem git runs on. Two implementations exist: the computer's
 * Vfs inside the Durable Object (vfs-git-fs.ts) and whatever RPC filesystem a guest worker
 * holds; node-fs.ts turns either into the Node-style `fs` isomorphic-git expects.
 */

/** The kind of an inode as git needs to know it. */
export type GitFileType = "file" | "dir" | "symlink" | "other";

/** What `stat`/`lstat` answer. */
export interface GitStat {
  type: GitFileType;
  /** Permission bits only (0o7777), without the type. */
  mode: number;
  size: number;
  ino: number;
  uid: number;
  gid: number;
  /** Milliseconds since the epoch (fractions allowed). */
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * An async filesystem in one absolute path space (the runtimes use guest paths under
 * `/workspace`). Every method rejects with an error-shaped value whose `code` is a POSIX code
 * (`ENOENT`, `EEXIST`, `ENOTDIR`, `EISDIR`, `ENOTEMPTY`, `EACCES`, ...) — isomorphic-git
 * branches on `code`, so a missing file MUST reject with `code: "ENOENT"`. A value that crossed
 * an RPC boundary may have lost its class; only `code` (and optionally `message`) is read.
 *
 * Guest runtimes implement this over their RPC channel to the DO; each method is one call.
 */
export interface GitFs {
  /** The whole content of a regular file (follows symlinks). */
  readFile(path: string): Promise<Uint8Array>;
  /** Creates or replaces a regular file; the parent must exist. `mode` applies to a new file. */
  writeFile(path: string, data: Uint8Array, mode?: number): Promise<void>;
  /** Creates one directory; EEXIST if the path exists, ENOENT if the parent does not. */
  mkdir(path: string): Promise<void>;
  /** Removes an empty directory (ENOTEMPTY otherwise). */
  rmdir(path: string): Promise<void>;
  /** Removes a file or symlink (EISDIR for a directory). */
  unlink(path: string): Promise<void>;
  /** Attributes, following symlinks. */
  stat(path: string): Promise<GitStat>;
  /** Attributes of the path itself. */
  lstat(path: string): Promise<GitStat>;
  /** The names in a directory (no `.`/`..`), in any order. */
  readdir(path: string): Promise<string[]>;
  /** A symlink's target text. */
  readlink(path: string): Promise<string>;
  /** Creates a symlink at `path` pointing to `target`. */
  symlink(target: string, path: string): Promise<void>;
  /** Sets permission bits. */
  chmod(path: string, mode: number): Promise<void>;
}
