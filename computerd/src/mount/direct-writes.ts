/**
 * Write-only handles bypass the kernel's page cache (FOPEN_DIRECT_IO), and their file's bytes
 * are put back into it after their release (FUSE_NOTIFY_STORE).
 *
 * Through the page cache every write syscall is two copies, one after the other: the writer's
 * bytes into the kernel's pages, then out of them into the daemon's receive buffer. A direct
 * write is one: from the writer's own buffer (pinned) into the receive buffer. The kernel
 * (from Linux 6.6) drops its cached pages of each range a direct write covers before sending
 * it, so pages other opens read stay current; a write-only handle cannot be mmap'd, so
 * nothing maps what it writes.
 *
 * Without more, a file just written would then be read through the daemon (`cat` after `dd`).
 * So when a direct handle is released and no other handle of the file may write, the file's
 * bytes, if memory holds all of them (they do right after writing: dirty pages, cached chunks),
 * are stored into the kernel's page cache on the thread pool, as its own writes would have left
 * them. While that store is on its way nothing may change the file behind it, or the kernel
 * would keep the older bytes: every request that could (an open, which may write or truncate,
 * a setattr, a copy into it, a write) waits until the store is done, and remote changes are
 * notified after it. Reads go on (a read the kernel is waiting for holds the page the store
 * needs next).
 */
import { release } from "node:os";
import { OP } from "./fuse3-native.ts";

const O_ACCMODE = 0o3;
const O_RDONLY = 0;
const O_WRONLY = 0o1;
const O_TRUNC = 0o1000;

/** The inode whose page-cache bytes a request may change (an open that may write or truncate), if any. */
function changesPages(op: number, args: readonly unknown[]): number | undefined {
  if (op === OP.open) {
    const flags = args[1] as number;
    return (flags & O_ACCMODE) !== O_RDONLY || flags & O_TRUNC ? (args[0] as number) : undefined;
  }
  if (op === OP.setattr || op === OP.write) return args[0] as number;
  if (op === OP.copy_file_range) return args[3] as number;
  return undefined;
}

/** Whether this kernel drops its cached pages of a range a direct write covers (Linux >= 6.6). */
export function kernelKeepsDirectWritesCoherent(kernelRelease = release()): boolean {
  const [major = 0, minor = 0] = kernelRelease.split(/[.-]/).map(Number);
  return major > 6 || (major === 6 && minor >= 6);
}

/** Puts a file's bytes (chunks from `offset` on) into the kernel's page cache; settles when done. */
export type StorePages = (ino: number, offset: number, chunks: readonly Uint8Array[]) => Promise<unknown>;

/**
 * The store leaves out the file's first page (the kernel's, 4 KiB): a read from the start then
 * reaches the daemon, which updates atime when it is due (relatime.ts) — what an open does with
 * the pages of a file the kernel wrote itself — and a file of one page costs no store at all.
 */
export const STORE_FROM = 4096;

export class DirectWrites {
  private readonly enabled: boolean;
  private readonly storePages: StorePages;
  /** Stops every store on its way at its next chunk. */
  private readonly cancel: () => void;
  /** Direct handles and their inodes. */
  private readonly handles = new Map<number, number>();
  /** Stores on their way, by inode. */
  private readonly storing = new Map<number, Promise<void>>();

  /** Whether a write-only create or truncating open gets a direct handle (opened). */
  get directOpens(): boolean {
    return this.enabled;
  }

  constructor(enabled: boolean, storePages: StorePages, cancel: () => void = () => {}) {
    this.enabled = enabled;
    this.storePages = storePages;
    this.cancel = cancel;
  }

  /**
   * An open of `ino` with `flags` got handle `fh` (`created`: a new file): answers whether it
   * bypasses the page cache. Only a write-only handle of a new or truncated file does: the kernel
   * has no pages of it then. Over cached pages (an overwrite, an append) a write through the page
   * cache copies into pages that exist, while a direct one would drop them (256 per MiB) and the
   * store would allocate them again.
   */
  opened(ino: number, fh: number, flags: number, created = false): boolean {
    if (!this.enabled || (flags & O_ACCMODE) !== O_WRONLY || !(created || flags & O_TRUNC)) return false;
    this.handles.set(fh, ino);
    return true;
  }

  /**
   * Handle `fh` was released. When it was direct and `othersWrite` is false (no other handle of
   * the file may write), the file's bytes `content()` gives (undefined: memory does not hold them
   * all) are stored into the kernel's page cache.
   */
  released(fh: number, othersWrite: boolean, content: () => Uint8Array[] | undefined): void {
    const ino = this.handles.get(fh);
    if (ino === undefined) return;
    this.handles.delete(fh);
    if (othersWrite || this.storing.has(ino)) return;
    const chunks = content()?.map((chunk, k) => (k === 0 ? chunk.subarray(STORE_FROM) : chunk));
    if (!chunks || chunks.every((chunk) => chunk.length === 0)) return;
    const done = this.storePages(ino, STORE_FROM, chunks).then(
      () => {},
      () => {},
    );
    this.storing.set(ino, done);
    void done.finally(() => {
      if (this.storing.get(ino) === done) this.storing.delete(ino);
    });
  }

  /**
   * Handles request `op` (`args` as the FUSE loop hands them) now, or, when it could change the
   * bytes of a file whose store is on its way, once the store has stopped: it stops at its next
   * chunk, and what it stored is current (the rest the kernel reads from the daemon).
   */
  afterStore(op: number, args: readonly unknown[], handle: () => void): void {
    const ino = changesPages(op, args);
    const storing = ino === undefined ? undefined : this.storing.get(ino);
    if (!storing) {
      handle();
      return;
    }
    this.cancel();
    void storing.then(handle);
  }

  /** Settles once the store into `ino`'s page cache is done, or undefined when none is on its way. */
  storeOf(ino: number): Promise<void> | undefined {
    return this.storing.get(ino);
  }

  /** Settles once every store on its way is done. */
  async stored(): Promise<void> {
    while (this.storing.size > 0) await Promise.all([...this.storing.values()]);
  }
}

/** No handle bypasses the page cache (a listener without a kernel to store into). */
export const NO_DIRECT_WRITES = new DirectWrites(false, async () => {});
