/**
 * Early writes (native/fuse3.c, ll_write): the FUSE loop answers a write of one whole, aligned
 * page itself and hands it to JS afterwards, so the writer does not wait for the JS thread.
 * JS can no longer refuse such a write, so the quota's room for it is set aside first: the
 * loop answers early only within the bytes granted here, and those bytes count as used
 * (WriteBack.room) until the write that took them has been buffered. A write JS answers itself
 * that finds too little room takes the unused grant back first, so the quota ends where it
 * did without early writes (a short write, then ENOSPC).
 */
import { CHUNK_SIZE, FILE_SIZE_MAX } from "@computer/vfs";

/** What the loop is told (fuse3-backend.ts passes the addon's calls). */
export interface WriteGrants {
  /** Adds `bytes` to the room early writes may take; none may end past `fileSizeMax`. */
  grant(bytes: number, fileSizeMax: number): void;
  /** Takes back the granted bytes the loop has not used; answers how many. */
  revoke(): number;
}

/** How far ahead of JS the loop may answer (the memory early writes on their way may hold). */
export const EARLY_WRITE_BYTES = 64 << 20;

/** The room set aside for early writes. */
export class EarlyWrites {
  private readonly grants: WriteGrants;
  private readonly limit: number;
  /** Granted to the loop and not handled yet: the unused grant plus early writes on their way. */
  private reserved = 0;

  constructor(grants: WriteGrants, limit = EARLY_WRITE_BYTES) {
    this.grants = grants;
    this.limit = limit;
  }

  /** Bytes the quota must keep free for early writes (WriteBack.room subtracts them). */
  get reservedBytes(): number {
    return this.reserved;
  }

  /** An early write of `bytes` reached JS: the write itself takes its room now. */
  handled(bytes: number): void {
    this.reserved -= bytes;
  }

  /** Whether the grant has run low enough to top it up (spares a usage query per write). */
  get low(): boolean {
    return this.reserved <= this.limit / 2;
  }

  /**
   * Tops the grant up to the limit within `room` (the quota's room beside everything buffered
   * and reserved; Infinity without a quota), or takes it back when the room is gone (the quota
   * shrank).
   */
  refill(room: number): void {
    if (room < 0) {
      this.revoke();
      return;
    }
    const give = Math.floor(Math.min(this.limit - this.reserved, room));
    if (give < CHUNK_SIZE) return;
    this.reserved += give;
    this.grants.grant(give, FILE_SIZE_MAX);
  }

  /** Takes back what the loop has not used (a write JS answers needs the room). */
  revoke(): void {
    this.reserved -= this.grants.revoke();
  }
}
