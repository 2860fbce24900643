/**
 * The filesystem capability the DO hands one shell/js exec (GuestFsApi, guest-wire.ts): an
 * RpcTarget that runs batches of ops straight on the computer's vfs, so a guest's reads and
 * writes are the DO's — nothing to sync. It counts round trips and ops (RPC calls per script),
 * and is revoked when the exec ends: a guest that outlives its exec can touch nothing.
 */
import { RpcTarget } from "cloudflare:workers";
import { CHUNK_SIZE, type DirEntry, isFsError, type Stat, toMs, type Vfs } from "@computer/vfs";
import type { GuestDirEntry, GuestFsError, GuestFsOp, GuestFsReply, GuestStat } from "./guest-wire.ts";

/** Counters of one exec's filesystem traffic. */
export interface GuestFsStats {
  /** RPC round trips (`run` calls). */
  calls: number;
  /** Ops those calls carried. */
  ops: number;
  /** Ops that changed the tree. */
  writes: number;
}

/** What the target needs from the DO. */
export interface GuestFsDeps {
  vfs(): Vfs;
  /** Called after a batch that changed the tree (schedules the GC alarm). */
  changed(): void;
}

const READ_OPS = new Set<GuestFsOp["op"]>([
  "stat",
  "lstat",
  "exists",
  "readFile",
  "readdir",
  "readlink",
  "realpath",
]);

function guestStat(stat: Stat): GuestStat {
  return {
    type: stat.type,
    mode: stat.mode,
    size: stat.size,
    ino: stat.ino,
    nlink: stat.nlink,
    uid: stat.uid,
    gid: stat.gid,
    atimeMs: toMs(stat.atime),
    mtimeMs: toMs(stat.mtime),
    ctimeMs: toMs(stat.ctime),
  };
}

function guestEntry(entry: DirEntry): GuestDirEntry {
  return {
    name: entry.name,
    type: entry.type,
    mode: entry.mode,
    size: entry.size,
    ino: entry.ino,
    mtimeMs: toMs(entry.mtime),
  };
}

function childOf(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** Copies `from` to `to` the way `cp` does: parents created, files overwritten, dirs merged. */
function copy(vfs: Vfs, from: string, to: string, recursive: boolean): void {
  const stat = vfs.lstat(from);
  const parent = to.slice(0, to.lastIndexOf("/")) || "/";
  if (!vfs.exists(parent)) vfs.mkdir(parent, { recursive: true });
  if (stat.type === "symlink") {
    if (vfs.exists(to) || isLink(vfs, to)) vfs.rm(to, {});
    vfs.symlink(vfs.readlink(from), to);
    return;
  }
  if (stat.type === "dir") {
    if (!recursive)
      throw Object.assign(new Error(`EISDIR: is a directory, cp '${from}'`), { code: "EISDIR" });
    if (to === from || to.startsWith(`${from}/`)) {
      throw Object.assign(new Error(`EINVAL: cannot copy '${from}' into itself`), { code: "EINVAL" });
    }
    if (!vfs.exists(to)) vfs.mkdir(to, { mode: stat.mode });
    for (const entry of vfs.list(from)) copy(vfs, childOf(from, entry.name), childOf(to, entry.name), true);
    return;
  }
  // Piecewise, so a large file never sits whole in the DO's memory; equal pieces dedupe by hash.
  vfs.writeFile(to, vfs.readFile(from, { offset: 0, length: CHUNK_SIZE }), { mode: stat.mode });
  for (let offset = CHUNK_SIZE; offset < stat.size; offset += CHUNK_SIZE) {
    vfs.pwrite(to, offset, vfs.readFile(from, { offset, length: CHUNK_SIZE }));
  }
  if (vfs.stat(to).mode !== stat.mode) vfs.chmod(to, stat.mode);
}

/**
 * A read the guest holds whole in memory (just-bash's strings, a js Buffer) and that crosses RPC
 * in one message: larger ones are EFBIG (the container runtime streams files of any size).
 */
export const MAX_GUEST_READ_BYTES = 32 * 1024 * 1024;

function readBounded(
  vfs: Vfs,
  path: string,
  offset: number | undefined,
  length: number | undefined,
): Uint8Array {
  const size = vfs.stat(path).size;
  const wanted = Math.min(length ?? size, Math.max(0, size - (offset ?? 0)));
  if (wanted > MAX_GUEST_READ_BYTES) {
    throw Object.assign(
      new Error(
        `EFBIG: file too large for this runtime (over ${MAX_GUEST_READ_BYTES} bytes), read '${path}'`,
      ),
      {
        code: "EFBIG",
        path,
      },
    );
  }
  return vfs.readFile(path, { offset, length });
}

function isDir(vfs: Vfs, path: string): boolean {
  try {
    return vfs.lstat(path).type === "dir";
  } catch {
    return false;
  }
}

function isLink(vfs: Vfs, path: string): boolean {
  try {
    return vfs.lstat(path).type === "symlink";
  } catch {
    return false;
  }
}

function apply(vfs: Vfs, op: GuestFsOp): unknown {
  switch (op.op) {
    case "stat":
      return guestStat(vfs.stat(op.path));
    case "lstat":
      return guestStat(vfs.lstat(op.path));
    case "exists":
      return vfs.exists(op.path);
    case "readFile":
      return readBounded(vfs, op.path, op.offset, op.length);
    case "writeFile":
      vfs.writeFile(op.path, op.data, { mode: op.mode, exclusive: op.exclusive });
      return undefined;
    case "appendFile":
      vfs.appendFile(op.path, op.data, { mode: op.mode });
      return undefined;
    case "truncate":
      vfs.truncate(op.path, op.length);
      return undefined;
    case "readdir":
      return vfs.list(op.path).map(guestEntry);
    case "mkdir":
      vfs.mkdir(op.path, { recursive: op.recursive, mode: op.mode });
      return undefined;
    case "rm":
      if (op.emptyDirs === true && op.recursive !== true && isDir(vfs, op.path)) vfs.rmdir(op.path);
      else vfs.rm(op.path, { recursive: op.recursive, force: op.force });
      return undefined;
    case "rmdir":
      vfs.rmdir(op.path);
      return undefined;
    case "unlink":
      vfs.unlink(op.path);
      return undefined;
    case "rename":
      vfs.rename(op.from, op.to);
      return undefined;
    case "copy":
      if (op.exclusive === true && vfs.exists(op.to)) {
        throw Object.assign(new Error(`EEXIST: file already exists, copyfile '${op.to}'`), {
          code: "EEXIST",
        });
      }
      copy(vfs, op.from, op.to, op.recursive === true);
      return undefined;
    case "chmod":
      vfs.chmod(op.path, op.mode);
      return undefined;
    case "symlink":
      vfs.symlink(op.target, op.path);
      return undefined;
    case "link":
      vfs.link(op.existing, op.path);
      return undefined;
    case "readlink":
      return vfs.readlink(op.path);
    case "realpath":
      return vfs.realpath(op.path);
    case "utimes":
      vfs.utimes(op.path, op.atimeMs, op.mtimeMs);
      return undefined;
    default:
      return op satisfies never;
  }
}

function errorOf(err: unknown): GuestFsError {
  if (isFsError(err)) {
    const error: GuestFsError = { code: err.code, message: err.message };
    if (err.syscall !== undefined) error.syscall = err.syscall;
    if (err.path !== undefined) error.path = err.path;
    return error;
  }
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return { code: typeof code === "string" ? code : "EIO", message };
}

/** One exec's filesystem capability. */
export class GuestFsTarget extends RpcTarget {
  readonly #deps: GuestFsDeps;
  #revoked = false;
  readonly stats: GuestFsStats = { calls: 0, ops: 0, writes: 0 };

  constructor(deps: GuestFsDeps) {
    super();
    this.#deps = deps;
  }

  /** See GuestFsApi.run. Throws once revoked. */
  run(ops: GuestFsOp[]): GuestFsReply[] {
    if (this.#revoked) throw new Error("this exec has ended: its filesystem is closed");
    if (!Array.isArray(ops)) throw new TypeError("run() takes an array of ops");
    this.stats.calls++;
    this.stats.ops += ops.length;
    const vfs = this.#deps.vfs();
    let wrote = false;
    const replies = ops.map((op): GuestFsReply => {
      if (!READ_OPS.has(op.op)) {
        wrote = true;
        this.stats.writes++;
      }
      try {
        return { ok: true, value: apply(vfs, op) };
      } catch (err) {
        return { ok: false, error: errorOf(err) };
      }
    });
    if (wrote) this.#deps.changed();
    return replies;
  }

  /** Closes the capability for good. */
  revoke(): void {
    this.#revoked = true;
  }
}
