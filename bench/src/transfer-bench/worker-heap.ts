/**
 * The JS heap of the local Worker's isolate (the Worker and its Durable Objects),
 * from the devtools inspector: `Runtime.getHeapUsage` every `everyMs`, keeping the peak. This
 * is what a production Durable Object's 128 MB limit applies to; workerd's RSS (process-memory.ts)
 * also counts the runtime and SQLite (and, under FLEET_WRANGLER_DEV=1, wrangler's second workerd).
 */
import type { Inspector } from "./inspector.ts";

/** Peak of the heap's used bytes; `mark()` answers the peak since the previous mark. */
export interface HeapSampler {
  mark(): number;
  stop(): number;
}

/**
 * Samples over `inspector` (wrangler's proxy takes one client at a time, so the profiler of
 * cpu-profile.ts shares it). `stop()` leaves the inspector open.
 */
export function sampleWorkerHeap(inspector: Inspector, everyMs = 200): HeapSampler {
  let peak = 0;
  let sincePeak = 0;
  const ask = () =>
    inspector.call<{ usedSize?: number }>("Runtime.getHeapUsage").then(
      ({ usedSize }) => {
        if (usedSize === undefined) return;
        peak = Math.max(peak, usedSize);
        sincePeak = Math.max(sincePeak, usedSize);
      },
      () => {
        // The inspector went away (the fleet is stopping): the peak so far stands.
      },
    );
  void ask();
  const timer = setInterval(ask, everyMs);
  return {
    mark() {
      const answer = sincePeak;
      sincePeak = 0;
      return answer;
    },
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
