/**
 * just-bash's IFileSystem over the computer's files: mounted at /workspace, every call goes
 * straight to the DO through FsClient (no copy, nothing to sync). Paths are resolved by the DO
 * one at a time as commands touch them, never listed up front (`getAllPaths` is empty, so
 * globbing walks directories). A directory listing carries each entry's stat, kept for a
 * moment so the `ls -l` / `find` pattern of readdir-then-stat costs one round trip, and
 * dropped on any change made through this filesystem. What kind of thing a path is (file,
 * directory, absent) is remembered for a moment too: the empty "open" write of a redirect to a
 * file known to exist (or to a new name in a directory known to exist) cannot fail, so it is
 * deferred and rides along with the content write — one round trip and one storage commit
 * instead of two.
 */

import type {
  ByteString,
  CpOptions,
  FileContent,
  FsStat,
  IFileSystem,
  MkdirOptions,
  RmOptions,
} from "just-bash";
import type { GuestDirEntry, GuestFsError, GuestFsOp, GuestStat } from "../guest-hosting/guest-wire.ts";
import { bytesToLatin1, decodeBytes, encodeText, isEncoding, type TextEncodingName } from "./encoding.ts";
import { type FsClient, fsError } from "./fs-client.ts";
import { lexicalPath } from "./lexical-path.ts";

type ReadOptions = Parameters<IFileSystem["readFile"]>[1];
type WriteOptions = Parameters<IFileSystem["writeFile"]>[2];

/** Directory entry with its type, as `readdirWithFileTypes` answers. */
interface Dirent {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

/** How long a stat learnt from a directory listing may answer a later stat/lstat. */
const LISTING_STAT_TTL_MS = 500;
/** How long what a path is (file, directory, absent) is trusted for deferring an open. */
const KIND_TTL_MS = 1000;

type Kind = "file" | "dir" | "absent" | "other";

function kindOf(type: string): Kind {
  return type === "file" ? "file" : type === "dir" ? "dir" : "other";
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

function isEmpty(content: FileContent): boolean {
  return typeof content === "string" ? content.length === 0 : content.byteLength === 0;
}

function encodingOf(options: ReadOptions | WriteOptions): TextEncodingName {
  const value = typeof options === "string" ? options : options?.encoding;
  return isEncoding(value) ? value : "utf8";
}

function toFsStat(stat: Pick<GuestStat, "type" | "mode" | "size" | "mtimeMs" | "ino">): FsStat {
  return {
    isFile: stat.type === "file",
    isDirectory: stat.type === "dir",
    isSymbolicLink: stat.type === "symlink",
    mode: stat.mode,
    size: stat.size,
    mtime: new Date(stat.mtimeMs),
    ino: stat.ino,
  };
}

function joinChild(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** The computer's files as just-bash sees them under `mountPoint`. */
export class WorkspaceFs implements IFileSystem {
  readonly #client: FsClient;
  readonly #mountPoint: string;
  readonly #listed = new Map<string, { stat: FsStat; at: number }>();
  readonly #kinds = new Map<string, { kind: Kind; at: number }>();
  /** The stat (symlinks followed) an `exists` just learnt, for the `stat` that usually follows. */
  #lastExists: { path: string; stat: FsStat; at: number } | undefined;

  constructor(client: FsClient, mountPoint: string) {
    this.#client = client;
    this.#mountPoint = mountPoint;
  }

  #guestPath(path: string): string {
    return path === "/" ? this.#mountPoint : `${this.#mountPoint}${path}`;
  }

  #call<T>(op: GuestFsOp, syscall: string, path: string, dest?: string): Promise<T> {
    const fail = (error: GuestFsError) =>
      fsError(
        error.code,
        syscall,
        this.#guestPath(error.path ?? path),
        dest === undefined ? undefined : this.#guestPath(dest),
      );
    return this.#client.call<T>(op, fail);
  }

  #mutate<T>(op: GuestFsOp, syscall: string, path: string, dest?: string): Promise<T> {
    this.#listed.clear();
    this.#lastExists = undefined;
    return this.#call<T>(op, syscall, path, dest);
  }

  /** A change that may move or remove paths: forget what every path was. */
  #restructure<T>(op: GuestFsOp, syscall: string, path: string, dest?: string): Promise<T> {
    this.#kinds.clear();
    return this.#mutate<T>(op, syscall, path, dest);
  }

  #learn(path: string, kind: Kind): void {
    this.#kinds.set(path, { kind, at: Date.now() });
  }

  #kind(path: string): Kind | undefined {
    if (path === "/") return "dir";
    const known = this.#kinds.get(path);
    return known !== undefined && Date.now() - known.at <= KIND_TTL_MS ? known.kind : undefined;
  }

  /** True when an empty write to `path` cannot fail: a known file, or a new name in a known directory. */
  #openCannotFail(path: string): boolean {
    const kind = this.#kind(path);
    return kind === "file" || (kind === "absent" && this.#kind(parentOf(path)) === "dir");
  }

  async #write(op: "writeFile" | "appendFile", path: string, content: FileContent, options: WriteOptions) {
    const p = lexicalPath(path);
    const data = this.#data(content, options);
    this.#listed.clear();
    this.#lastExists = undefined;
    if (isEmpty(content) && this.#openCannotFail(p)) {
      this.#client.defer({ op, path: p, data }, (error) => fsError(error.code, "open", this.#guestPath(p)));
    } else {
      await this.#call({ op, path: p, data }, "open", path);
    }
    this.#learn(p, "file");
  }

  #remembered(path: string): FsStat | undefined {
    const hit = this.#listed.get(path);
    if (hit === undefined) return undefined;
    this.#listed.delete(path);
    return Date.now() - hit.at <= LISTING_STAT_TTL_MS ? hit.stat : undefined;
  }

  async #bytes(path: string): Promise<Uint8Array> {
    return this.#call<Uint8Array>({ op: "readFile", path: lexicalPath(path) }, "open", path);
  }

  async readFile(path: string, options?: ReadOptions): Promise<string> {
    return decodeBytes(await this.#bytes(path), encodingOf(options));
  }

  async readFileBytes(path: string): Promise<ByteString> {
    return bytesToLatin1(await this.#bytes(path)) as unknown as ByteString;
  }

  readFileBuffer(path: string): Promise<Uint8Array> {
    return this.#bytes(path);
  }

  #data(content: FileContent, options: WriteOptions): Uint8Array | string {
    if (typeof content !== "string") return content;
    const encoding = encodingOf(options);
    return encoding === "utf8" || encoding === "utf-8" ? content : encodeText(content, encoding);
  }

  writeFile(path: string, content: FileContent, options?: WriteOptions): Promise<void> {
    return this.#write("writeFile", path, content, options);
  }

  appendFile(path: string, content: FileContent, options?: WriteOptions): Promise<void> {
    return this.#write("appendFile", path, content, options);
  }

  /** Answered by a stat, so the kind of the path is learnt on the way. */
  async exists(path: string): Promise<boolean> {
    const p = lexicalPath(path);
    try {
      const stat = await this.#call<GuestStat>({ op: "stat", path: p }, "access", path);
      this.#learn(p, kindOf(stat.type));
      this.#lastExists = { path: p, stat: toFsStat(stat), at: Date.now() };
      return true;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === "ENOENT") this.#learn(p, "absent");
      return false;
    }
  }

  async stat(path: string): Promise<FsStat> {
    const p = lexicalPath(path);
    const known = this.#remembered(p);
    if (known !== undefined && !known.isSymbolicLink) return known;
    const justChecked = this.#lastExists;
    this.#lastExists = undefined;
    if (justChecked?.path === p && Date.now() - justChecked.at <= LISTING_STAT_TTL_MS)
      return justChecked.stat;
    const stat = await this.#call<GuestStat>({ op: "stat", path: p }, "stat", path);
    this.#learn(p, kindOf(stat.type));
    return toFsStat(stat);
  }

  async lstat(path: string): Promise<FsStat> {
    const p = lexicalPath(path);
    const known = this.#remembered(p);
    if (known !== undefined) return known;
    return toFsStat(await this.#call<GuestStat>({ op: "lstat", path: p }, "lstat", path));
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const p = lexicalPath(path);
    const recursive = options?.recursive === true;
    // `mkdir -p` of a directory known to exist changes nothing: no round trip.
    if (recursive && this.#kind(p) === "dir") return;
    await this.#mutate({ op: "mkdir", path: p, recursive }, "mkdir", path);
    this.#learn(p, "dir");
  }

  async #list(path: string): Promise<GuestDirEntry[]> {
    const p = lexicalPath(path);
    const entries = await this.#call<GuestDirEntry[]>({ op: "readdir", path: p }, "scandir", path);
    const at = Date.now();
    this.#learn(p, "dir");
    for (const entry of entries) {
      const child = joinChild(p, entry.name);
      this.#listed.set(child, { stat: toFsStat(entry), at });
      if (entry.type !== "symlink") this.#learn(child, kindOf(entry.type));
    }
    return entries;
  }

  async readdir(path: string): Promise<string[]> {
    return (await this.#list(path)).map((entry) => entry.name);
  }

  async readdirWithFileTypes(path: string): Promise<Dirent[]> {
    return (await this.#list(path)).map((entry) => ({
      name: entry.name,
      isFile: entry.type === "file",
      isDirectory: entry.type === "dir",
      isSymbolicLink: entry.type === "symlink",
    }));
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const op: GuestFsOp = {
      op: "rm",
      path: lexicalPath(path),
      recursive: options?.recursive === true,
      force: options?.force === true,
      emptyDirs: true,
    };
    await this.#restructure(op, "rm", path);
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const op: GuestFsOp = {
      op: "copy",
      from: lexicalPath(src),
      to: lexicalPath(dest),
      recursive: options?.recursive === true,
    };
    await this.#restructure(op, "cp", src, dest);
  }

  async mv(src: string, dest: string): Promise<void> {
    await this.#restructure(
      { op: "rename", from: lexicalPath(src), to: lexicalPath(dest) },
      "rename",
      src,
      dest,
    );
  }

  resolvePath(base: string, path: string): string {
    return path.startsWith("/") ? lexicalPath(path) : lexicalPath(`${base}/${path}`);
  }

  /** Empty on purpose: the tree is never listed up front (globs walk directories instead). */
  getAllPaths(): string[] {
    return [];
  }

  async chmod(path: string, mode: number): Promise<void> {
    await this.#mutate({ op: "chmod", path: lexicalPath(path), mode }, "chmod", path);
  }

  async symlink(target: string, linkPath: string): Promise<void> {
    await this.#restructure({ op: "symlink", target, path: lexicalPath(linkPath) }, "symlink", linkPath);
  }

  async link(existingPath: string, newPath: string): Promise<void> {
    const op: GuestFsOp = { op: "link", existing: lexicalPath(existingPath), path: lexicalPath(newPath) };
    await this.#restructure(op, "link", existingPath, newPath);
  }

  readlink(path: string): Promise<string> {
    return this.#call<string>({ op: "readlink", path: lexicalPath(path) }, "readlink", path);
  }

  realpath(path: string): Promise<string> {
    return this.#call<string>({ op: "realpath", path: lexicalPath(path) }, "realpath", path);
  }

  async utimes(path: string, atime: Date, mtime: Date): Promise<void> {
    const op: GuestFsOp = {
      op: "utimes",
      path: lexicalPath(path),
      atimeMs: atime.getTime(),
      mtimeMs: mtime.getTime(),
    };
    await this.#mutate(op, "utime", path);
  }
}
