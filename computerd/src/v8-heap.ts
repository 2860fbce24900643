/**
 * How the daemon's V8 heap counts external memory: against V8's global allocation limit, not as
 * if it were old-generation objects. computerd moves bytes in ArrayBuffers of 1 MiB (the mount's
 * pages, blobs read back from the mirror) beside a JS heap of ~12 MiB; counted the default way,
 * every few dozen MiB of them reached the small heap's limit and started a full collection:
 * ~9 per 100 MiB a command wrote, ~150 ms of CPU on V8's threads (docs/BENCH.md, "Moving bytes,
 * eighth round").
 */
import { setFlagsFromString } from "node:v8";

/** The V8 flag (default off in Node 24's V8 13.6). */
export const EXTERNAL_MEMORY_FLAG = "--external-memory-accounted-in-global-limit";

/**
 * Sets the flag for this process. V8 reads it at each allocation-limit check, so setting it at
 * start, before the daemon moves any bytes, takes effect (checked by v8-heap.test.ts).
 */
export function countExternalMemoryGlobally(): void {
  setFlagsFromString(EXTERNAL_MEMORY_FLAG);
}
