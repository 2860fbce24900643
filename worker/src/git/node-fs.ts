/**
 * The Node-style `fs` client isomorphic-git takes (`{ promises: { readFile, writeFile, ... } }`)
 * built over a GitFs: Node's argument shapes (encodings, option objects), Stats objects with
 * type bits and `isFile()`/`isDirectory()`/`isSymbolicLink()`, and errors carrying `code`,
 * `errno`, `syscall` and `path` as Node's do.
 */
import { Buffer } from "node:buffer";
import { FS_ERROR_CODES, type FsErrorCode, LINUX_ERRNO } from "@computer/vfs";
import { TYPE_BITS } from "@computer/vfs/mode-bits";
import type { GitFs, GitStat } from "./git-fs.ts";

/** Linux errno of each vfs code (negated in `err.errno`, as Node does). */
const ERRNO: Record<FsErrorCode, number> = LINUX_ERRNO;

/** The S_IFMT bits of a GitStat's type ("other" shows as a fifo). */
const GIT_TYPE_BITS: Record<GitStat["type"], number> = {
  file: TYPE_BITS.file,
  dir: TYPE_BITS.dir,
  symlink: TYPE_BITS.symlink,
  other: TYPE_BITS.fifo,
};

/** The umask applied to modes passed to writeFile (Node applies the process umask). */
const UMASK = 0o022;

/** An error shaped like Node's fs errors: `ENOENT: no such file or directory, open '/a'`. */
export class NodeFsError extends Error {
  readonly code: string;
  readonly errno: number | undefined;
  readonly syscall: string;
  readonly path: string;

  constructor(code: string, syscall: string, path: string, detail?: string) {
    super(`${code}: ${detail ?? "operation failed"}, ${syscall} '${path}'`);
    this.name = "Error";
    this.code = code;
    const errno = (FS_ERROR_CODES as readonly string[]).includes(code)
      ? ERRNO[code as FsErrorCode]
      : undefined;
    this.errno = errno === undefined ? undefined : -errno;
    this.syscall = syscall;
    this.path = path;
  }
}

/** Node's Stats, as much of it as git reads. */
export interface NodeStats {
  type: GitStat["type"];
  mode: number;
  size: number;
  ino: number;
  uid: number;
  gid: number;
  dev: number;
  mtimeMs: number;
  ctimeMs: number;
  mtime: Date;
  ctime: Date;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** A GitStat as a Node Stats object (mode includes the type bits). */
export function nodeStats(stat: GitStat): NodeStats {
  return {
    type: stat.type,
    mode: GIT_TYPE_BITS[stat.type] | stat.mode,
    size: stat.size,
    ino: stat.ino,
    uid: stat.uid,
    gid: stat.gid,
    dev: 1,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    mtime: new Date(stat.mtimeMs),
    ctime: new Date(stat.ctimeMs),
    isFile: () => stat.type === "file",
    isDirectory: () => stat.type === "dir",
    isSymbolicLink: () => stat.type === "symlink",
  };
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : undefined;
}

function errorDetail(err: unknown): string | undefined {
  const message = (err as { message?: unknown }).message;
  if (typeof message !== "string") return undefined;
  const match = /^E[A-Z]+: ([^,]*)/.exec(message);
  return match?.[1];
}

/** Runs `fn`, rethrowing a coded error as a NodeFsError for `syscall` on `path`. */
async function call<T>(syscall: string, path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const code = errorCode(err);
    if (code === undefined) throw err;
    throw new NodeFsError(code, syscall, path, errorDetail(err));
  }
}

type Encoding = string | { encoding?: string | null; mode?: number; recursive?: boolean } | undefined | null;

function encodingOf(options: Encoding): string | undefined {
  if (typeof options === "string") return options;
  return options?.encoding ?? undefined;
}

function isUtf8(encoding: string | undefined): boolean {
  return encoding === "utf8" || encoding === "utf-8";
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}

/** The `fs.promises` subset isomorphic-git calls. */
export interface NodePromisesFs {
  readFile(path: string, options?: Encoding): Promise<Buffer | string>;
  writeFile(path: string, data: string | Uint8Array, options?: Encoding): Promise<void>;
  mkdir(path: string, options?: Encoding | number): Promise<void>;
  rmdir(path: string): Promise<void>;
  unlink(path: string): Promise<void>;
  stat(path: string): Promise<NodeStats>;
  lstat(path: string): Promise<NodeStats>;
  readdir(path: string): Promise<string[]>;
  readlink(path: string, options?: Encoding): Promise<Buffer | string>;
  symlink(target: string, path: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
}

/** The fs client to pass as isomorphic-git's `fs` option. */
export interface IsomorphicGitFs {
  promises: NodePromisesFs;
}

/** Wraps `fs` as isomorphic-git's promise fs client. */
export function isomorphicGitFs(fs: GitFs): IsomorphicGitFs {
  const mkdirp = async (path: string): Promise<void> => {
    try {
      await fs.mkdir(path);
    } catch (err) {
      const code = errorCode(err);
      if (code === "EEXIST" && (await fs.stat(path)).type === "dir") return;
      const parent = path.slice(0, path.lastIndexOf("/"));
      if (code !== "ENOENT" || parent === "") throw err;
      await mkdirp(parent);
      await fs.mkdir(path);
    }
  };
  const promises: NodePromisesFs = {
    readFile: (path, options) =>
      call("open", path, async () => {
        const bytes = await fs.readFile(path);
        const encoding = encodingOf(options);
        if (isUtf8(encoding)) return new TextDecoder().decode(bytes);
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }),
    writeFile: (path, data, options) =>
      call("open", path, () => {
        const mode = typeof options === "object" && options !== null ? options.mode : undefined;
        return fs.writeFile(path, toBytes(data), mode === undefined ? undefined : mode & ~UMASK);
      }),
    mkdir: (path, options) =>
      call("mkdir", path, () => {
        const recursive = typeof options === "object" && options !== null && options.recursive === true;
        return recursive ? mkdirp(path) : fs.mkdir(path);
      }),
    rmdir: (path) => call("rmdir", path, () => fs.rmdir(path)),
    unlink: (path) => call("unlink", path, () => fs.unlink(path)),
    stat: (path) => call("stat", path, async () => nodeStats(await fs.stat(path))),
    lstat: (path) => call("lstat", path, async () => nodeStats(await fs.lstat(path))),
    readdir: (path) => call("scandir", path, () => fs.readdir(path)),
    readlink: (path, options) =>
      call("readlink", path, async () => {
        const target = await fs.readlink(path);
        return encodingOf(options) === "buffer" ? Buffer.from(target, "utf8") : target;
      }),
    symlink: (target, path) => call("symlink", path, () => fs.symlink(target, path)),
    chmod: (path, mode) => call("chmod", path, () => fs.chmod(path, mode)),
  };
  // isomorphic-git only uses `promises` when it is an enumerable own property.
  return { promises };
}
