/** Open file handles of one mount: handle numbers (never 0), their inodes, and each inode's open count. */

/** An open handle: its inode and open flags. */
type Handle = { ino: number; flags: number };

export class OpenHandles {
  private readonly handles = new Map<number, Handle>();
  private readonly openCount = new Map<number, number>();
  private nextFh = 1;

  /**
   * Registers an open file; returns its handle number: `given` (numbered by the FUSE loop, from
   * 2^41 on, never one of these) or the next of its own.
   */
  open(ino: number, flags: number, given?: number): number {
    const fh = given ?? this.nextFh++;
    if (this.nextFh > 0x7fffffff) this.nextFh = 1;
    this.handles.set(fh, { ino, flags });
    this.openCount.set(ino, (this.openCount.get(ino) ?? 0) + 1);
    return fh;
  }

  /** The inode behind a handle. */
  inoOf(fh: number): number | undefined {
    return this.handles.get(fh)?.ino;
  }

  isOpen(ino: number): boolean {
    return (this.openCount.get(ino) ?? 0) > 0;
  }

  /** Forgets a handle; answers its inode when that was the inode's last open handle. */
  close(fh: number): number | undefined {
    const handle = this.handles.get(fh);
    if (!handle) return undefined;
    this.handles.delete(fh);
    const count = (this.openCount.get(handle.ino) ?? 1) - 1;
    if (count > 0) {
      this.openCount.set(handle.ino, count);
      return undefined;
    }
    this.openCount.delete(handle.ino);
    return handle.ino;
  }
}
