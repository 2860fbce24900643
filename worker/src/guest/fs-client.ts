/**
 * The guest's client of the DO's filesystem capability (GuestFsApi): every op issued in the
 * same turn of the event loop travels in one RPC call, replies come back as values or as
 * Node-style errors (`ENOENT: no such file or directory, open '/workspace/a'` with `.code`).
 * Shared by the shell guest (just-bash adapter) and the js guest (node:fs/promises).
 */
import type { GuestFsApi, GuestFsError, GuestFsOp, GuestFsReply } from "../runtimes/guest-wire.ts";

const DESCRIPTIONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EEXIST: "file already exists",
  ENOTDIR: "not a directory",
  EISDIR: "illegal operation on a directory",
  ENOTEMPTY: "directory not empty",
  EINVAL: "invalid argument",
  ELOOP: "too many symbolic links encountered",
  ENAMETOOLONG: "name too long",
  EROFS: "read-only file system",
  EFBIG: "file too large",
  ENOSPC: "no space left on device",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EXDEV: "cross-device link not permitted",
  EBUSY: "resource busy or locked",
  EMLINK: "too many links",
  ENODATA: "no data available",
  EIO: "i/o error",
};

/** Linux errno of each code (Node puts it negated in `err.errno`). */
const ERRNO: Record<string, number> = {
  EPERM: 1,
  ENOENT: 2,
  EIO: 5,
  EACCES: 13,
  EBUSY: 16,
  EEXIST: 17,
  EXDEV: 18,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  EFBIG: 27,
  ENOSPC: 28,
  EROFS: 30,
  EMLINK: 31,
  ENAMETOOLONG: 36,
  ENOSYS: 38,
  ENOTEMPTY: 39,
  ELOOP: 40,
  ENODATA: 61,
};

/** An error as Node's fs raises it: `code`, `errno`, `syscall`, `path` (and `dest`) set. */
export interface NodeStyleError extends Error {
  code: string;
  errno?: number;
  syscall?: string;
  path?: string;
  dest?: string;
}

/** Builds a Node-style error for `code` on `syscall` of the guest path `path`. */
export function fsError(code: string, syscall: string, path: string, dest?: string): NodeStyleError {
  const description = DESCRIPTIONS[code] ?? code.toLowerCase();
  const where = dest === undefined ? `'${path}'` : `'${path}' -> '${dest}'`;
  const err = new Error(`${code}: ${description}, ${syscall} ${where}`) as NodeStyleError;
  err.code = code;
  const errno = ERRNO[code];
  if (errno !== undefined) err.errno = -errno;
  err.syscall = syscall;
  err.path = path;
  if (dest !== undefined) err.dest = dest;
  return err;
}

interface Pending {
  op: GuestFsOp;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** Turns the DO's error into the one the caller sees (guest paths, Node syscall name). */
  fail: (error: GuestFsError) => Error;
}

/** Counters of one client: RPC round trips and the ops they carried. */
export interface FsClientStats {
  calls: number;
  ops: number;
}

/** Sends ops to the DO, batching those issued in the same turn. */
export class FsClient {
  readonly #api: GuestFsApi;
  #queue: Pending[] = [];
  #scheduled = false;
  readonly stats: FsClientStats = { calls: 0, ops: 0 };

  constructor(api: GuestFsApi) {
    this.#api = api;
  }

  /**
   * Runs one op; resolves with its value or rejects with `fail(error)`. Ops queued in the same
   * turn go out together, in order.
   */
  call<T>(op: GuestFsOp, fail: (error: GuestFsError) => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ op, resolve: resolve as (value: unknown) => void, reject, fail });
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    this.stats.calls++;
    this.stats.ops += batch.length;
    let replies: GuestFsReply[];
    try {
      replies = await this.#api.run(batch.map((p) => p.op));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => {
      const reply = replies[i];
      if (reply === undefined) p.reject(new Error("the filesystem answered fewer ops than it was sent"));
      else if (reply.ok) p.resolve(reply.value);
      else p.reject(p.fail(reply.error));
    });
  }
}
