/**
 * Where the write-back stores (dirty-file.ts's FlushTarget) over the mirror's vfs: with the
 * time of the last write (stat shows the same mtime before and after a store), a whole page
 * with the hash computed ahead, and the attributes the vfs answered, so the write-back hands
 * them on instead of the meta cache reading the row again; new small files several at once.
 */
import type { FileContent, Stat, Timespec, Vfs } from "@computer/vfs";
import type { KnownHashes } from "../mirror/known-hashes.ts";
import type { RecentBlobs } from "../mirror/recent-blobs.ts";
import type { FlushTarget } from "./dirty-file.ts";

export class StoreTarget implements FlushTarget {
  private readonly vfs: Vfs;
  private readonly known: KnownHashes | undefined;
  private readonly recent: RecentBlobs | undefined;
  private last: Stat | undefined;

  constructor(vfs: Vfs, known: KnownHashes | undefined, recent?: RecentBlobs) {
    this.vfs = vfs;
    this.known = known;
    this.recent = recent;
  }

  writeFile(path: string, data: Uint8Array, mtime: Timespec): void {
    this.last = this.vfs.writeFile(path, data, { mtime });
  }

  pwrite(path: string, offset: number, data: Uint8Array, mtime: Timespec, hash?: string): void {
    const store = () => this.vfs.pwrite(path, offset, data, { mtime });
    this.last = hash && this.known ? this.known.during(data, hash, store) : store();
    // The upload sends these bytes from memory when it needs the blob `hash` (their sha-256).
    if (hash) this.recent?.note(hash, data);
  }

  truncate(path: string, length: number, mtime: Timespec): void {
    this.last = this.vfs.truncate(path, length, { mtime });
  }

  /** Stores several files' whole content in one operation; answers their attributes, in order. */
  writeFiles(files: readonly FileContent[]): Stat[] {
    return this.vfs.writeFiles(files);
  }

  /** Before a store: forgets the attributes of the last one. */
  begin(): void {
    this.last = undefined;
  }

  /** The attributes the vfs answered the store of `ino` since begin() with, if it stored `ino`. */
  stored(ino: number): Stat | undefined {
    const stat = this.last;
    this.last = undefined;
    return stat?.ino === ino ? stat : undefined;
  }
}
