/**
 * The guest's client of the DO's filesystem capability (GuestFsApi): every op issued in the
 * same turn of the event loop travels in one RPC call, replies come back as values or as
 * Node-style errors (`ENOENT: no such file or directory, open '/workspace/a'` with `.code`).
 * Shared by the shell guest (just-bash adapter) and the js guest (node:fs/promises).
 */
import { errnoOf } from "@computer/vfs/errno";
import type { GuestFsApi, GuestFsError, GuestFsOp, GuestFsReply } from "../guest-hosting/guest-wire.ts";

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
  const errno = errnoOf(code);
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
  /** A deferred op: its caller was answered already; a failure is reported later. */
  deferred?: boolean;
}

/** Counters of one client: RPC round trips and the ops they carried. */
export interface FsClientStats {
  calls: number;
  ops: number;
}

function pathOf(op: GuestFsOp): string | undefined {
  return "path" in op ? op.path : undefined;
}

/**
 * Sends ops to the DO. Ops issued in the same turn go out together, in order, in one RPC.
 * A deferred op (`defer`) is answered at once and rides along with the next op, so work that
 * cannot fail (the "open" of a redirect to a file known to exist) costs no round trip — and no
 * storage commit — of its own. If one fails after all, the op after it on the same path fails
 * with its error; otherwise `drain` reports it.
 */
export class FsClient {
  readonly #api: GuestFsApi;
  #queue: Pending[] = [];
  #scheduled = false;
  #heldTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #lateFailures: Error[] = [];
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
        queueMicrotask(() => this.#flush());
      }
    });
  }

  /** Queues `op` without waiting for it: it goes out with the next op, or on its own shortly. */
  defer(op: GuestFsOp, fail: (error: GuestFsError) => Error): void {
    this.#queue.push({ op, resolve: () => undefined, reject: () => undefined, fail, deferred: true });
    this.#heldTimer ??= setTimeout(() => {
      this.#heldTimer = undefined;
      this.#flush();
    }, 0);
  }

  /** Sends whatever is queued and waits for every reply; returns failures no caller saw. */
  async drain(): Promise<Error[]> {
    this.#flush();
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
    return this.#lateFailures.splice(0);
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#heldTimer !== undefined) {
      clearTimeout(this.#heldTimer);
      this.#heldTimer = undefined;
    }
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    const sent = this.#send(batch);
    this.#inFlight.add(sent);
    void sent.finally(() => this.#inFlight.delete(sent));
  }

  async #send(batch: Pending[]): Promise<void> {
    this.stats.calls++;
    this.stats.ops += batch.length;
    let replies: GuestFsReply[];
    try {
      replies = await this.#api.run(batch.map((p) => p.op));
    } catch (err) {
      for (const p of batch) {
        if (p.deferred) this.#lateFailures.push(err instanceof Error ? err : new Error(String(err)));
        else p.reject(err);
      }
      return;
    }
    const failedPaths = new Map<string, Error>();
    batch.forEach((p, i) => {
      const reply = replies[i];
      const path = pathOf(p.op);
      const earlier = path === undefined ? undefined : failedPaths.get(path);
      if (reply === undefined) {
        p.reject(new Error("the filesystem answered fewer ops than it was sent"));
      } else if (p.deferred) {
        if (!reply.ok && path !== undefined) failedPaths.set(path, p.fail(reply.error));
      } else if (earlier !== undefined) {
        failedPaths.delete(path ?? "");
        p.reject(earlier);
      } else if (reply.ok) p.resolve(reply.value);
      else p.reject(p.fail(reply.error));
    });
    this.#lateFailures.push(...failedPaths.values());
  }
}
