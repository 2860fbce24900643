/**
 * The used bytes and the quota, in memory: the mount asks for them before every write it
 * buffers (is there room?), one statement each time. Same contract as dir-cache.ts: only for
 * a database nothing but this vfs changes, whose owner clears it after every rollback the vfs
 * does not see (the mount's mirror: BatchedSql.onRollback). The Store sets it from what it
 * reads and from what its own writes of `used` and `quota` answer, and drops it wherever it
 * drops the directories (a failed operation, a restore, an import).
 */

/** Used bytes and the quota (undefined: none), as the meta table holds them. */
export interface StoredUsage {
  used: number;
  quota: number | undefined;
}

export class UsageCache {
  private value: StoredUsage | undefined;

  /** The usage last read or written, if still known. */
  get(): StoredUsage | undefined {
    return this.value && { ...this.value };
  }

  /** The meta table holds exactly this now. */
  set(value: StoredUsage): void {
    this.value = { ...value };
  }

  /** Forgets it (written behind the Store, or rolled back). */
  clear(): void {
    this.value = undefined;
  }
}
