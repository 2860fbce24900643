/**
 * Writes the FUSE loop answers before JS sees them: a whole aligned page (early-writes.ts), and
 * a run of writes continuing a stream JS armed (native/write-run.h: `head -c`, a compiler or tar
 * writing 4–128 KiB at a time cost one trip through this thread per write otherwise). JS arms a
 * handle when it is opened for writing (at 0, or at the end for O_APPEND) and after taking a
 * whole write through it, at the offset where the write ended, unless the file has chunks still
 * at the Durable Object: the loop's runs then never need old bytes that
 * are not here. A remote change disarms every handle (the file may be lazy now); a run that
 * still finds its file lazy waits for the chunks it merges with before it is buffered, and the
 * fence waits for it.
 */
import { CHUNK_SIZE, type Timespec } from "@computer/vfs";
import { OP } from "./fuse3-native.ts";
import type { LocalFs } from "./local-fs.ts";
import { requestWait } from "./remote-chunks.ts";

/** Lets the loop answer the writes through `fh` of `ino` that continue at `next`. */
export type ArmWrites = (ino: number, fh: number, next: number) => void;

export class AnsweredWrites {
  private readonly fs: LocalFs;
  private readonly arm: ArmWrites;
  private readonly sizeOf: (ino: number) => number;
  /** Runs waiting for chunks before they are buffered. */
  private readonly waiting = new Set<Promise<void>>();

  constructor(fs: LocalFs, arm: ArmWrites, sizeOf: (ino: number) => number) {
    this.fs = fs;
    this.arm = arm;
    this.sizeOf = sizeOf;
  }

  /**
   * A handle that may write was opened (a create, an open for writing): its first write at
   * `next` (0, or the end for O_APPEND) may be the loop's already, so a new small file's write
   * makes no trip through this thread.
   */
  opened(ino: number, fh: number, next: number): void {
    if (!this.fs.remoteChunks?.isLazy(ino)) this.arm(ino, fh, next);
  }

  /** JS took `taken` of `length` bytes written at `offset`: a whole write continues the stream. */
  took(ino: number, fh: number, offset: number, length: number, taken: number): void {
    if (taken === length && length > 0 && !this.fs.remoteChunks?.isLazy(ino))
      this.arm(ino, fh, offset + taken);
  }

  /**
   * A write the loop answered: buffered now, or once the chunks it merges with are here. `at`:
   * the time the loop answered a run's last write at, its mtime (the loop's attributes of the
   * file say so already).
   */
  answered(ino: number, fh: number, path: string, data: Buffer, offset: number, at?: Timespec): void {
    // A whole page needs no old bytes: it becomes the page as it is.
    const whole = data.length === CHUNK_SIZE && offset % CHUNK_SIZE === 0;
    const remote = whole ? undefined : this.fs.remoteChunks;
    const wait = remote && requestWait(remote, OP.write, [ino, fh, offset, 0, data], this.sizeOf);
    if (!wait) {
      this.fs.writeAnswered(fh, path, data, offset, at);
      return;
    }
    // Fetch failures are the store's to report: the write is buffered over what is here.
    const buffered = wait.then(
      () => this.fs.writeAnswered(fh, path, data, offset, at),
      () => this.fs.writeAnswered(fh, path, data, offset, at),
    );
    this.waiting.add(buffered);
    void buffered.finally(() => this.waiting.delete(buffered));
  }

  /** Settles once every answered write that waited for chunks is buffered. */
  async buffered(): Promise<void> {
    while (this.waiting.size > 0) await Promise.allSettled([...this.waiting]);
  }
}
