/**
 * Finishing container syncs left `pending` (the link failed during or after an exec): the DO's
 * alarm reconnects to computerd and calls `fence()`, which uploads every change still held in
 * the container; then every pending exec of the journal is marked complete at the DO revision.
 * Failures back off exponentially (capped) and retry until it works or the computer is deleted.
 */

import type { ExecJournal } from "../exec/journal.ts";
import type { LinkSession } from "./computerd-link.ts";

/** First retry delay; doubled per failure up to SYNC_RETRY_MAX_MS. */
export const SYNC_RETRY_MIN_MS = 5_000;
/** Longest delay between retries. */
export const SYNC_RETRY_MAX_MS = 10 * 60 * 1000;

/** What the retry needs from the DO. */
export interface SyncRetryDeps {
  journal: ExecJournal;
  connect(): Promise<LinkSession>;
  /** Schedules the next attempt at `at`. */
  schedule(at: number): Promise<void>;
  /** Durable attempt counter (reset on success). */
  attempts: { get(): number; put(n: number): void };
  now(): number;
}

/** Delay before attempt `n` (0-based). */
export function retryDelay(attempt: number): number {
  return Math.min(SYNC_RETRY_MAX_MS, SYNC_RETRY_MIN_MS * 2 ** Math.min(attempt, 20));
}

/** Schedules a retry soon (an exec just left its sync pending). */
export async function schedulePendingSync(deps: SyncRetryDeps): Promise<void> {
  await deps.schedule(deps.now() + retryDelay(deps.attempts.get()));
}

/**
 * One attempt: fence and complete every pending exec. Returns true when nothing is pending
 * any more; on failure schedules the next attempt and returns false.
 */
export async function retryPendingSync(deps: SyncRetryDeps): Promise<boolean> {
  const pending = deps.journal.pendingSync();
  if (pending.length === 0) {
    deps.attempts.put(0);
    return true;
  }
  try {
    const session = await deps.connect();
    const fence = await session.fence();
    deps.journal.completeSync(pending, fence.rev, fence.conflicts);
    deps.attempts.put(0);
    return true;
  } catch (err) {
    const attempt = deps.attempts.get();
    deps.attempts.put(attempt + 1);
    console.error(`sync retry ${attempt + 1} failed:`, err instanceof Error ? err.message : err);
    await deps.schedule(deps.now() + retryDelay(attempt + 1));
    return false;
  }
}
