/**
 * Space given back on the mirror: the vfs GC (blobs no file or checkpoint uses, old deletion
 * records) past a safety window, then SQLite's incremental vacuum and a WAL truncation, so the
 * state directory shrinks after deletes. It runs on its own, on a timer (startMirrorGc).
 */
import type { Mirror } from "./open-mirror.ts";

/**
 * How old an unused blob must be before it goes: longer than a push takes between storing a
 * blob and applying the batch that uses it, and than a write stream that stores ahead.
 */
export const MIRROR_GC_WINDOW_MS = 10 * 60 * 1000;
/** How often the GC runs on its own while there may be garbage (see startMirrorGc). */
export const MIRROR_GC_INTERVAL_MS = 60 * 1000;

/** What one run gave back. */
export interface SpaceReport {
  blobsDeleted: number;
  changesPruned: number;
  /** Database pages returned to the file system. */
  pagesFreed: number;
  /** Placeholders no file used any more (their blobs may go at the Durable Object too). */
  placeholdersDeleted: string[];
}

/** One GC run: collect, then vacuum what the collection freed. */
export function collectGarbage(mirror: Mirror, windowMs = MIRROR_GC_WINDOW_MS): SpaceReport {
  const { blobsDeleted, changesPruned, placeholdersDeleted } = mirror.vfs.gc({ windowMs });
  return { blobsDeleted, changesPruned, pagesFreed: mirror.sql.reclaim(), placeholdersDeleted };
}

/** Options of startMirrorGc. */
export interface MirrorGcOptions {
  intervalMs?: number;
  windowMs?: number;
  log(message: string, err?: unknown): void;
  /** Told about every run (tests, counters). */
  onRun?(report: SpaceReport): void;
}

/**
 * Runs collectGarbage every `intervalMs` until stopped; the timer never keeps the process
 * alive. A run scans every blob on the daemon's thread, so it runs only while something can
 * have become garbage: blobs lose their last use only through changes, which move the
 * revision, so once a window has passed since the last change and a run came after it, the
 * timer idles until the next change.
 */
export function startMirrorGc(mirror: Mirror, options: MirrorGcOptions): { stop(): void } {
  const windowMs = options.windowMs ?? MIRROR_GC_WINDOW_MS;
  let seenRev = -1;
  let changedAt = 0;
  let ranAt = Number.NEGATIVE_INFINITY;
  const timer = setInterval(() => {
    try {
      const now = Date.now();
      const rev = mirror.vfs.rev();
      if (rev !== seenRev) {
        seenRev = rev;
        changedAt = now;
      }
      if (ranAt > changedAt + windowMs) return;
      const report = collectGarbage(mirror, windowMs);
      ranAt = now;
      options.onRun?.(report);
    } catch (err) {
      options.log("mirror GC failed", err);
    }
  }, options.intervalMs ?? MIRROR_GC_INTERVAL_MS);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
