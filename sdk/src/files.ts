/**
 * A computer's files: read (bytes, text, a stream, a Range), write (bytes, text, a stream),
 * listings with paging, stat, and every op of `POST .../fs` (mkdir -p, rename and exchange,
 * symlink, chmod, utimes, xattrs, find, grep, ...). Paths are relative to /workspace.
 */
import { fromBase64, toBase64 } from "./base64.ts";
import type {
  EntryJson,
  EntryPage,
  FsOpBody,
  FsOpName,
  FsResults,
  GrepMatch,
  StatJson,
  TimeInput,
  WrittenFile,
} from "./contract/types.ts";
import { ComputerError } from "./error.ts";
import type { Transport } from "./transport.ts";

/** Options every call takes. */
export interface Signal {
  signal?: AbortSignal;
}

/** A byte range: `offset` and, optionally, `length` (default: to the end). */
export interface ByteRange {
  offset: number;
  length?: number;
}

/** An opened file: its bytes as a stream and what the headers say. */
export interface FileDownload {
  body: ReadableStream<Uint8Array>;
  /** Bytes in `body` (the range's length for a Range read). */
  size: number;
  /** The whole file's size. */
  totalSize: number;
  etag: string | undefined;
  mode: string | undefined;
  lastModified: string | undefined;
}

/** What a write takes: text (UTF-8), bytes, a Blob or a stream. */
export type WriteData = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>;

/** Stat as `HEAD` answers it. */
export interface HeadStat {
  type: string;
  size: number;
  mode: string;
  lastModified: string | undefined;
  etag: string | undefined;
}

function rangeHeader(range: ByteRange): string {
  if (!Number.isSafeInteger(range.offset) || range.offset < 0) throw new RangeError("offset must be ≥ 0");
  if (range.length === undefined) return `bytes=${range.offset}-`;
  if (!Number.isSafeInteger(range.length) || range.length < 1) throw new RangeError("length must be ≥ 1");
  return `bytes=${range.offset}-${range.offset + range.length - 1}`;
}

function modeString(mode: string | number): string {
  return typeof mode === "number" ? mode.toString(8).padStart(4, "0") : mode;
}

/** The files of one computer. */
export class Files {
  readonly #t: Transport;
  readonly #id: string;

  constructor(transport: Transport, id: string) {
    this.#t = transport;
    this.#id = id;
  }

  /** Opens a file for reading; `range` asks for part of it. A directory is EISDIR. */
  async open(path: string, options: Signal & { range?: ByteRange } = {}): Promise<FileDownload> {
    const headers: Record<string, string> = {};
    if (options.range !== undefined) headers.Range = rangeHeader(options.range);
    const res = await this.#t.call("files.get", {
      params: { id: this.#id, path },
      headers,
      signal: options.signal,
    });
    if ((res.headers.get("content-type") ?? "").startsWith("application/json")) {
      await res.body?.cancel();
      throw new ComputerError("EISDIR", "is a directory", { status: 409, path });
    }
    const size = Number(res.headers.get("content-length") ?? "0");
    const total = /\/(\d+)$/.exec(res.headers.get("content-range") ?? "")?.[1];
    return {
      body: res.body ?? new ReadableStream({ start: (c) => c.close() }),
      size,
      totalSize: total === undefined ? size : Number(total),
      etag: res.headers.get("etag") ?? undefined,
      mode: res.headers.get("x-file-mode") ?? undefined,
      lastModified: res.headers.get("last-modified") ?? undefined,
    };
  }

  /** A file's bytes (or a range of them). */
  async read(path: string, options: Signal & { range?: ByteRange } = {}): Promise<Uint8Array> {
    const file = await this.open(path, options);
    return new Uint8Array(await new Response(file.body).arrayBuffer());
  }

  /** A file's text (UTF-8). */
  async readText(path: string, options: Signal & { range?: ByteRange } = {}): Promise<string> {
    return new TextDecoder().decode(await this.read(path, options));
  }

  /** A file's bytes as a stream. */
  async stream(
    path: string,
    options: Signal & { range?: ByteRange } = {},
  ): Promise<ReadableStream<Uint8Array>> {
    return (await this.open(path, options)).body;
  }

  /**
   * Writes `data` as the file (parents created, replaced if it exists; readers see the old or
   * the new bytes, never a mix). `ifMatch` (an ETag from `open`/`head`) writes only if the file
   * is still that version, else ESTALE and nothing changes.
   */
  async write(
    path: string,
    data: WriteData,
    options: Signal & { mode?: string | number; ifMatch?: string } = {},
  ): Promise<WrittenFile> {
    const body = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const headers: Record<string, string> = { "Content-Type": "application/octet-stream" };
    if (options.ifMatch !== undefined) headers["If-Match"] = options.ifMatch;
    return this.#t.json<WrittenFile>("files.put", {
      params: { id: this.#id, path },
      query: { mode: options.mode === undefined ? undefined : modeString(options.mode) },
      headers,
      body: body as BodyInit,
      signal: options.signal,
    });
  }

  /** Stat as `HEAD` headers: type, size, mode, mtime. */
  async head(path: string, options: Signal = {}): Promise<HeadStat> {
    const res = await this.#t.call("files.head", { params: { id: this.#id, path }, signal: options.signal });
    return {
      type: res.headers.get("x-file-type") ?? "file",
      size: Number(res.headers.get("x-file-size") ?? res.headers.get("content-length") ?? "0"),
      mode: res.headers.get("x-file-mode") ?? "",
      lastModified: res.headers.get("last-modified") ?? undefined,
      etag: res.headers.get("etag") ?? undefined,
    };
  }

  /** Every attribute of a file; `follow: false` is lstat (a symlink's own, with its `target`). */
  stat(path: string, options: Signal & { follow?: boolean } = {}): Promise<StatJson> {
    return this.op(
      { op: "stat", path, ...(options.follow === undefined ? {} : { follow: options.follow }) },
      options,
    );
  }

  /** True when `path` exists (a dangling symlink counts). */
  async exists(path: string, options: Signal = {}): Promise<boolean> {
    try {
      await this.stat(path, { ...options, follow: false });
      return true;
    } catch (err) {
      if (err instanceof ComputerError && err.code === "ENOENT") return false;
      throw err;
    }
  }

  /** One page of a directory (sorted by name); pass `next` as `after` for the next. */
  async list(path = "", options: Signal & { after?: string; limit?: number } = {}): Promise<EntryPage> {
    const res = await this.#t.call("files.get", {
      params: { id: this.#id, path },
      query: { after: options.after, limit: options.limit },
      signal: options.signal,
    });
    if (!(res.headers.get("content-type") ?? "").startsWith("application/json")) {
      await res.body?.cancel();
      throw new ComputerError("ENOTDIR", "not a directory", { status: 409, path });
    }
    return (await res.json()) as EntryPage;
  }

  /** Every entry of a directory, page after page. */
  async *entries(path = "", options: Signal & { pageSize?: number } = {}): AsyncGenerator<EntryJson> {
    let after: string | undefined;
    do {
      const page = await this.list(path, { signal: options.signal, after, limit: options.pageSize ?? 1000 });
      yield* page.entries;
      after = page.next;
    } while (after !== undefined);
  }

  /** Creates a directory; `recursive` creates its parents and accepts an existing one (mkdir -p). */
  mkdir(
    path: string,
    options: Signal & { recursive?: boolean; mode?: string | number } = {},
  ): Promise<StatJson> {
    return this.op(
      {
        op: "mkdir",
        path,
        ...(options.recursive === undefined ? {} : { recursive: options.recursive }),
        ...(options.mode === undefined ? {} : { mode: modeString(options.mode) }),
      },
      options,
    );
  }

  /** Renames `from` to `to` (replacing it); `exchange` swaps the two atomically. */
  rename(
    from: string,
    to: string,
    options: Signal & { exchange?: boolean } = {},
  ): Promise<FsResults["rename"]> {
    return this.op({ op: "rename", from, to, ...(options.exchange ? { exchange: true } : {}) }, options);
  }

  /** Creates `path` as a symlink to `target`. */
  symlink(target: string, path: string, options: Signal = {}): Promise<FsResults["symlink"]> {
    return this.op({ op: "symlink", target, path }, options);
  }

  /** Creates `path` as a hard link of `existing`. */
  link(existing: string, path: string, options: Signal = {}): Promise<StatJson> {
    return this.op({ op: "link", existing, path }, options);
  }

  /** A symlink's target. */
  async readlink(path: string, options: Signal = {}): Promise<string> {
    return (await this.op({ op: "readlink", path }, options)).target;
  }

  /** The path with every symlink resolved. */
  async realpath(path: string, options: Signal = {}): Promise<string> {
    return (await this.op({ op: "realpath", path }, options)).path;
  }

  /** Sets the permission bits (`0o755` or `"0755"`). */
  chmod(path: string, mode: string | number, options: Signal = {}): Promise<StatJson> {
    return this.op({ op: "chmod", path, mode: modeString(mode) }, options);
  }

  /** Sets owner and group (the vfs's own ids). */
  chown(path: string, uid: number, gid: number, options: Signal = {}): Promise<StatJson> {
    return this.op({ op: "chown", path, uid, gid }, options);
  }

  /** Sets access and modification times (each omitted one is left as it is). */
  utimes(
    path: string,
    times: { atime?: TimeInput; mtime?: TimeInput },
    options: Signal = {},
  ): Promise<StatJson> {
    return this.op({ op: "utimes", path, ...times }, options);
  }

  /** Cuts or extends a file to `length` bytes. */
  truncate(path: string, length: number, options: Signal = {}): Promise<StatJson> {
    return this.op({ op: "truncate", path, length }, options);
  }

  /** Removes a file, symlink or empty directory; `recursive` removes a whole tree. */
  remove(path: string, options: Signal & { recursive?: boolean } = {}): Promise<void> {
    return this.#t.empty("files.delete", {
      params: { id: this.#id, path },
      query: { recursive: options.recursive ? 1 : undefined },
      signal: options.signal,
    });
  }

  /** Bytes stored under `path` and its counts of files and directories. */
  du(path = "", options: Signal = {}): Promise<FsResults["du"]> {
    return this.op({ op: "du", path }, options);
  }

  /** Paths under `path` matching `glob` (`*`, `**`, `?`), sorted. */
  async find(path: string, glob: string, options: Signal & { limit?: number } = {}): Promise<string[]> {
    const body = {
      op: "find" as const,
      path,
      glob,
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    };
    return (await this.op(body, options)).paths;
  }

  /** Lines matching `pattern` (literal, or a regex with `regex: true`) in files under `path`. */
  async grep(
    path: string,
    pattern: string,
    options: Signal & {
      regex?: boolean;
      ignoreCase?: boolean;
      context?: number;
      limit?: number;
      glob?: string;
    } = {},
  ): Promise<GrepMatch[]> {
    const { signal, ...rest } = options;
    return (await this.op({ op: "grep", path, pattern, ...rest }, { signal })).matches;
  }

  /** Names of the extended attributes, sorted. */
  async listXattrs(path: string, options: Signal & { follow?: boolean } = {}): Promise<string[]> {
    const { signal, ...rest } = options;
    return (await this.op({ op: "listxattr", path, ...rest }, { signal })).names;
  }

  /** An extended attribute's value; a missing one is ENODATA. */
  async getXattr(
    path: string,
    name: string,
    options: Signal & { follow?: boolean } = {},
  ): Promise<Uint8Array> {
    const { signal, ...rest } = options;
    return fromBase64((await this.op({ op: "getxattr", path, name, ...rest }, { signal })).value);
  }

  /** Sets a `user.*` extended attribute; `flag` makes it create-only or replace-only. */
  async setXattr(
    path: string,
    name: string,
    value: Uint8Array | string,
    options: Signal & { flag?: "create" | "replace"; follow?: boolean } = {},
  ): Promise<void> {
    const { signal, ...rest } = options;
    const bytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
    await this.op({ op: "setxattr", path, name, value: toBase64(bytes), ...rest }, { signal });
  }

  /** Removes an extended attribute; a missing one is ENODATA. */
  async removeXattr(path: string, name: string, options: Signal & { follow?: boolean } = {}): Promise<void> {
    const { signal, ...rest } = options;
    await this.op({ op: "removexattr", path, name, ...rest }, { signal });
  }

  /** Runs one op of `POST .../fs` as written (see docs/API.md); read-only ops are retried on 503. */
  op<K extends FsOpName>(body: FsOpBody<K>, options: Signal = {}): Promise<FsResults[K]> {
    return this.#t.json<FsResults[K]>("fs", {
      params: { id: this.#id },
      json: body,
      signal: options.signal,
      idempotent: READ_OPS.has(body.op),
    });
  }
}

const READ_OPS = new Set<FsOpName>([
  "stat",
  "readdir",
  "readlink",
  "realpath",
  "du",
  "find",
  "grep",
  "listxattr",
  "getxattr",
]);
