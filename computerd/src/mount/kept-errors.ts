/**
 * Write-back errors kept for a file's next fsync or close: a store no syscall of the file
 * waited for (the fence, a background store) or a write the FUSE loop answered that could not
 * be buffered failed, and the next fsync or close of the inode reports it, once, as Linux
 * reports write-back errors.
 */
import { NonEmptyWatch, WatchedMap } from "./watched-map.ts";

export class KeptErrors {
  private readonly errors = new WatchedMap<number, unknown>();
  /**
   * Whether a close may have work: an error kept for a file's next close (a close stores
   * nothing). Told as soon as one is kept, so the FUSE loop answers every other close itself.
   */
  readonly closeWork = new NonEmptyWatch([this.errors]);

  has(ino: number): boolean {
    return this.errors.has(ino);
  }

  keep(ino: number, err: unknown): void {
    this.errors.set(ino, err);
  }

  drop(ino: number): void {
    this.errors.delete(ino);
  }

  /** Throws (and forgets) the error kept for `ino`, if any. */
  report(ino: number): void {
    if (!this.errors.has(ino)) return;
    const err = this.errors.get(ino);
    this.errors.delete(ino);
    throw err;
  }

  /**
   * Runs `store` of `ino` with the error kept for it set aside (so `store` does not report it):
   * a failure of its own is logged and kept; otherwise the earlier error stays kept.
   */
  storing(ino: number, store: () => void, log: (err: unknown) => void): void {
    const kept = this.errors.get(ino);
    this.errors.delete(ino);
    try {
      store();
    } catch (err) {
      this.errors.set(ino, err);
      log(err);
    }
    if (kept !== undefined && !this.errors.has(ino)) this.errors.set(ino, kept);
  }
}
