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
/** How often the GC runs on its own. With nothing to collect a run costs a few queries. */
export const MIRROR_GC_INTERVAL_MS = 60 * 1000;

/** What one run gave back. */
export interface SpaceReport {
  blobsDeleted: number;
  changesPruned: number;
  /** Database pages returned to the file system. */
  pagesFreed: number;
}

/** One GC run: collect, then vacuum what the collection freed. */
export function collectGarbage(mirror: Mirror, windowMs = MIRROR_GC_WINDOW_MS): SpaceReport {
  const { blobsDeleted, changesPruned } = mirror.vfs.gc({ windowMs });
  return { blobsDeleted, changesPruned, pagesFreed: mirror.sql.reclaim() };
}

/** Options of startMirrorGc. */
export interface MirrorGcOptions {
  intervalMs?: number;
  windowMs?: number;
  log(message: string, err?: unknown): void;
}

/** Runs collectGarbage every `intervalMs` until stopped; the timer never keeps the process alive. */
export function startMirrorGc(mirror: Mirror, options: MirrorGcOptions): { stop(): void } {
  const timer = setInterval(() => {
    try {
      collectGarbage(mirror, options.windowMs);
    } catch (err) {
      options.log("mirror GC failed", err);
    }
  }, options.intervalMs ?? MIRROR_GC_INTERVAL_MS);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
