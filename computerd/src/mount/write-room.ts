/**
 * The quota's room for buffered writes: what the vfs has left beside what buffered writes will
 * add once stored and what is set aside for early writes (early-writes.ts). A write JS answers
 * that does not fit first takes the unused early grant back, so the quota ends exactly where
 * it would without early writes: a short write, then ENOSPC.
 */
import type { Vfs } from "@computer/vfs";
import type { DirtyFile } from "./dirty-file.ts";
import { EarlyWrites, type WriteGrants } from "./early-writes.ts";

export class WriteRoom {
  private readonly vfs: Vfs;
  /** Bytes buffered writes will add to the vfs's used bytes once stored. */
  private readonly buffered: () => number;
  private early: EarlyWrites | undefined;

  constructor(vfs: Vfs, buffered: () => number) {
    this.vfs = vfs;
    this.buffered = buffered;
  }

  /** Lets the FUSE loop answer whole-page writes early, within room set aside here. */
  useEarlyWrites(grants: WriteGrants): void {
    this.early = new EarlyWrites(grants);
    this.early.refill(this.left());
  }

  /** Bytes the quota still has room for beside what is stored, buffered and set aside. */
  left(): number {
    const { usedBytes, quotaBytes } = this.vfs.usage();
    if (quotaBytes === null) return Number.POSITIVE_INFINITY;
    return quotaBytes - usedBytes - this.buffered() - (this.early?.reservedBytes ?? 0);
  }

  /** Whether growing by `extra` passes the room, even after taking back the unused early grant. */
  short(extra: number): boolean {
    if (extra <= 0 || extra <= this.left()) return false;
    this.early?.revoke();
    return extra > this.left();
  }

  /** The longest prefix of a write at `offset` whose growth fits (growth only rises with length). */
  longestFit(file: DirtyFile, offset: number, length: number): number {
    const room = this.left();
    let [fits, fails] = [0, length];
    while (fails - fits > 1) {
      const mid = Math.floor((fits + fails) / 2);
      if (file.growthOfWrite(offset, mid) <= room) fits = mid;
      else fails = mid;
    }
    return fits;
  }

  /** An early write of `bytes` reached JS: it takes its room as a write now. */
  earlyHandled(bytes: number): void {
    this.early?.handled(bytes);
  }

  /**
   * Sets the quota: the loop's unused grant is taken back and given again within the new room.
   * A grant stays with the loop until taken back, and the loop answers writes from it without
   * JS: given before the quota was set or shrank (the DO sends it after the mount started, and
   * again when it changes), it let a writer past the quota while the JS thread was busy, and
   * what did not fit was dropped at the store after `write()` had succeeded.
   */
  setQuota(bytes: number | null): void {
    this.vfs.setQuota(bytes);
    if (!this.early) return;
    this.early.revoke();
    this.early.refill(this.left());
  }

  /** Tops the early grant up when it ran low (a whole page was just written). */
  refillEarly(): void {
    if (this.early?.low) this.early.refill(this.left());
  }
}
