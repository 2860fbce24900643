/**
 * `node:fs/promises` of the js runtime over the computer's files (FsClient → DO): Node's
 * argument shapes (string/Buffer/URL paths, encodings, option objects, flags), return values
 * (Buffer, Stats, Dirent) and errors (`code`, `errno`, `syscall`, `path`). Relative paths start
 * at the exec's cwd; the computer is `/workspace`, anything outside it does not exist (ENOENT).
 */

import { Buffer } from "node:buffer";
import type {
  FS_PROMISES_FUNCTIONS,
  GuestDirEntry,
  GuestFsError,
  GuestFsOp,
  GuestStat,
} from "../guest-hosting/guest-wire.ts";
import { encodeText, isEncoding } from "./encoding.ts";
import { type FsClient, fsError } from "./fs-client.ts";
import { lexicalPath } from "./lexical-path.ts";
import { Dirent, Stats } from "./node-stats.ts";

const WORKSPACE = "/workspace";

type PathLike = string | URL | Uint8Array;
type Options =
  | string
  | { encoding?: string | null; flag?: string; mode?: number; [key: string]: unknown }
  | null;
type Data = string | ArrayBufferView | ArrayBuffer;

/** fs.constants. */
export const constants = Object.freeze({
  F_OK: 0,
  R_OK: 4,
  W_OK: 2,
  X_OK: 1,
  COPYFILE_EXCL: 1,
  COPYFILE_FICLONE: 2,
  COPYFILE_FICLONE_FORCE: 4,
  S_IFMT: 0o170000,
  S_IFREG: 0o100000,
  S_IFDIR: 0o040000,
  S_IFLNK: 0o120000,
});

function option<T>(options: Options | undefined, key: string): T | undefined {
  return typeof options === "object" && options !== null ? (options[key] as T | undefined) : undefined;
}

function encodingOf(options: Options | undefined): string | undefined {
  if (typeof options === "string") return options;
  return option<string | null>(options, "encoding") ?? undefined;
}

function bytesOf(data: Data, encoding: string | undefined): Uint8Array | string {
  if (typeof data === "string") {
    if (encoding === undefined || encoding === "utf8" || encoding === "utf-8") return data;
    return isEncoding(encoding) ? encodeText(data, encoding) : data;
  }
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function timeMs(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "number") return value * 1000;
  if (typeof value === "string") return Number(value) * 1000;
  throw new TypeError("times must be Dates, numbers (seconds) or numeric strings");
}

/** Builds the fs/promises API over `client` for an exec whose cwd is `cwd` (a /workspace path). */
export function createFsPromises(client: FsClient, cwd: string) {
  const guest = (path: PathLike): string => {
    let text: string;
    if (typeof path === "string") text = path;
    else if (path instanceof URL) {
      if (path.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
      text = decodeURIComponent(path.pathname);
    } else text = new TextDecoder().decode(path);
    if (text.includes("\0"))
      throw Object.assign(new TypeError("path must not contain null bytes"), {
        code: "ERR_INVALID_ARG_VALUE",
      });
    return lexicalPath(text.startsWith("/") ? text : `${cwd}/${text}`);
  };
  /** The vfs path of a guest path, or undefined outside the workspace. */
  const inside = (path: string): string | undefined => {
    if (path === WORKSPACE) return "/";
    return path.startsWith(`${WORKSPACE}/`) ? path.slice(WORKSPACE.length) : undefined;
  };
  const vfs = (path: string, syscall: string, dest?: string): string => {
    const p = inside(path);
    if (p === undefined) throw fsError("ENOENT", syscall, path, dest);
    return p;
  };
  const call = <T>(op: GuestFsOp, syscall: string, path: string, dest?: string): Promise<T> =>
    client.call<T>(op, (error: GuestFsError) => fsError(error.code, syscall, path, dest));

  const stat = async (path: PathLike): Promise<Stats> => {
    const p = guest(path);
    return new Stats(await call<GuestStat>({ op: "stat", path: vfs(p, "stat") }, "stat", p));
  };
  const lstat = async (path: PathLike): Promise<Stats> => {
    const p = guest(path);
    return new Stats(await call<GuestStat>({ op: "lstat", path: vfs(p, "lstat") }, "lstat", p));
  };
  const readdir = async (path: PathLike, options?: Options): Promise<string[] | Dirent[]> => {
    const p = guest(path);
    const withTypes = option<boolean>(options, "withFileTypes") === true;
    const recursive = option<boolean>(options, "recursive") === true;
    const list = (dir: string) =>
      call<GuestDirEntry[]>({ op: "readdir", path: vfs(dir, "scandir") }, "scandir", dir);
    const names: string[] = [];
    const dirents: Dirent[] = [];
    const walk = async (dir: string, prefix: string): Promise<void> => {
      const entries = await list(dir);
      const subdirs: Promise<void>[] = [];
      for (const entry of entries) {
        names.push(`${prefix}${entry.name}`);
        dirents.push(new Dirent(entry.name, dir, entry.type));
        if (recursive && entry.type === "dir")
          subdirs.push(walk(`${dir}/${entry.name}`, `${prefix}${entry.name}/`));
      }
      // Sibling directories are listed concurrently: one round trip per level of the tree.
      await Promise.all(subdirs);
    };
    await walk(p, "");
    return withTypes ? dirents : names;
  };
  const mkdir = async (path: PathLike, options?: Options | number): Promise<string | undefined> => {
    const p = guest(path);
    const opts = typeof options === "number" ? { mode: options } : options;
    const recursive = option<boolean>(opts, "recursive") === true;
    const mode = option<number>(opts, "mode");
    if (!recursive) {
      await call({ op: "mkdir", path: vfs(p, "mkdir"), ...(mode === undefined ? {} : { mode }) }, "mkdir", p);
      return undefined;
    }
    // The first directory created is what Node returns: ask for every ancestor in one round trip.
    const ancestors: string[] = [];
    for (
      let dir = p;
      inside(dir) !== undefined && dir !== WORKSPACE;
      dir = dir.slice(0, dir.lastIndexOf("/"))
    ) {
      ancestors.unshift(dir);
    }
    const present = await Promise.all(
      ancestors.map((dir) => call<boolean>({ op: "exists", path: vfs(dir, "mkdir") }, "mkdir", dir)),
    );
    const first = ancestors[present.indexOf(false)];
    await call(
      { op: "mkdir", path: vfs(p, "mkdir"), recursive: true, ...(mode === undefined ? {} : { mode }) },
      "mkdir",
      p,
    );
    return first;
  };
  const writeFile = async (path: PathLike, data: Data, options?: Options): Promise<void> => {
    const p = guest(path);
    const flag = option<string>(options, "flag") ?? "w";
    const mode = option<number>(options, "mode");
    const bytes = bytesOf(data, encodingOf(options));
    const extra = mode === undefined ? {} : { mode };
    if (flag.startsWith("a")) {
      await call({ op: "appendFile", path: vfs(p, "open"), data: bytes, ...extra }, "open", p);
      return;
    }
    const exclusive = flag.includes("x");
    await call({ op: "writeFile", path: vfs(p, "open"), data: bytes, exclusive, ...extra }, "open", p);
  };
  const api = {
    constants,
    async access(path: PathLike, _mode?: number): Promise<void> {
      const p = guest(path);
      await call<GuestStat>({ op: "stat", path: vfs(p, "access") }, "access", p);
    },
    async appendFile(path: PathLike, data: Data, options?: Options): Promise<void> {
      const p = guest(path);
      const mode = option<number>(options, "mode");
      const bytes = bytesOf(data, encodingOf(options));
      await call(
        { op: "appendFile", path: vfs(p, "open"), data: bytes, ...(mode === undefined ? {} : { mode }) },
        "open",
        p,
      );
    },
    async chmod(path: PathLike, mode: number | string): Promise<void> {
      const p = guest(path);
      const bits = typeof mode === "string" ? Number.parseInt(mode, 8) : mode;
      await call({ op: "chmod", path: vfs(p, "chmod"), mode: bits }, "chmod", p);
    },
    async copyFile(src: PathLike, dest: PathLike, mode = 0): Promise<void> {
      const [s, d] = [guest(src), guest(dest)];
      const exclusive = (mode & constants.COPYFILE_EXCL) !== 0;
      const op: GuestFsOp = { op: "copy", from: vfs(s, "copyfile", d), to: vfs(d, "copyfile", d), exclusive };
      if (exclusive && (await call<boolean>({ op: "exists", path: op.to }, "copyfile", s, d))) {
        throw fsError("EEXIST", "copyfile", s, d);
      }
      await call(op, "copyfile", s, d);
    },
    async cp(src: PathLike, dest: PathLike, options?: Options): Promise<void> {
      const [s, d] = [guest(src), guest(dest)];
      const recursive = option<boolean>(options, "recursive") === true;
      await call({ op: "copy", from: vfs(s, "cp", d), to: vfs(d, "cp", d), recursive }, "cp", s, d);
    },
    async link(existing: PathLike, newPath: PathLike): Promise<void> {
      const [s, d] = [guest(existing), guest(newPath)];
      await call({ op: "link", existing: vfs(s, "link", d), path: vfs(d, "link", d) }, "link", s, d);
    },
    lstat,
    mkdir,
    async mkdtemp(prefix: string): Promise<string> {
      for (;;) {
        const suffix = Array.from(
          crypto.getRandomValues(new Uint8Array(6)),
          (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36],
        ).join("");
        const p = guest(`${prefix}${suffix}`);
        try {
          await call({ op: "mkdir", path: vfs(p, "mkdtemp"), mode: 0o700 }, "mkdtemp", p);
          return p;
        } catch (err) {
          if ((err as { code?: unknown }).code !== "EEXIST") throw err;
        }
      }
    },
    async readFile(path: PathLike, options?: Options): Promise<Buffer | string> {
      const p = guest(path);
      const bytes = await call<Uint8Array>({ op: "readFile", path: vfs(p, "open") }, "open", p);
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const encoding = encodingOf(options);
      return encoding === undefined || encoding === "buffer"
        ? buffer
        : buffer.toString(encoding as BufferEncoding);
    },
    readdir,
    async readlink(path: PathLike, options?: Options): Promise<string | Buffer> {
      const p = guest(path);
      const target = await call<string>({ op: "readlink", path: vfs(p, "readlink") }, "readlink", p);
      return encodingOf(options) === "buffer" ? Buffer.from(target) : target;
    },
    async realpath(path: PathLike): Promise<string> {
      const p = guest(path);
      const real = await call<string>({ op: "realpath", path: vfs(p, "realpath") }, "realpath", p);
      return real === "/" ? WORKSPACE : `${WORKSPACE}${real}`;
    },
    async rename(oldPath: PathLike, newPath: PathLike): Promise<void> {
      const [s, d] = [guest(oldPath), guest(newPath)];
      await call({ op: "rename", from: vfs(s, "rename", d), to: vfs(d, "rename", d) }, "rename", s, d);
    },
    async rm(path: PathLike, options?: Options): Promise<void> {
      const p = guest(path);
      const recursive = option<boolean>(options, "recursive") === true;
      const force = option<boolean>(options, "force") === true;
      if (force && inside(p) === undefined) return;
      await call({ op: "rm", path: vfs(p, "rm"), recursive, force }, "rm", p);
    },
    async rmdir(path: PathLike, options?: Options): Promise<void> {
      const p = guest(path);
      const recursive = option<boolean>(options, "recursive") === true;
      const op: GuestFsOp = recursive
        ? { op: "rm", path: vfs(p, "rmdir"), recursive }
        : { op: "rmdir", path: vfs(p, "rmdir") };
      await call(op, "rmdir", p);
    },
    stat,
    async symlink(target: PathLike, path: PathLike): Promise<void> {
      const p = guest(path);
      const text = typeof target === "string" ? target : guest(target);
      await call({ op: "symlink", target: text, path: vfs(p, "symlink") }, "symlink", text, p);
    },
    async truncate(path: PathLike, length = 0): Promise<void> {
      const p = guest(path);
      await call({ op: "truncate", path: vfs(p, "open"), length }, "open", p);
    },
    async unlink(path: PathLike): Promise<void> {
      const p = guest(path);
      await call({ op: "unlink", path: vfs(p, "unlink") }, "unlink", p);
    },
    async utimes(path: PathLike, atime: unknown, mtime: unknown): Promise<void> {
      const p = guest(path);
      await call(
        { op: "utimes", path: vfs(p, "utime"), atimeMs: timeMs(atime), mtimeMs: timeMs(mtime) },
        "utime",
        p,
      );
    },
    writeFile,
  } satisfies Record<(typeof FS_PROMISES_FUNCTIONS)[number], unknown> & { constants: unknown };
  return api;
}

/** The fs/promises API of one exec. */
export type FsPromises = ReturnType<typeof createFsPromises>;
