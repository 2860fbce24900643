/**
 * What the sync wire carried, one end's count: round trips by method, the changes of applied
 * batches, and the blob bytes in the calls' arguments (`sentBytes`: putBlobs, a batch's inline
 * blobs) and in their answers (`returnedBytes`: getBlobs). computerd counts its calls to the
 * Durable Object, the DO the calls it serves; the benchmarks put them beside the times.
 */
import type { BlobData, SyncBatch } from "./wire.ts";

export interface SyncCounters {
  calls: Record<string, number>;
  changes: number;
  sentBytes: number;
  returnedBytes: number;
}

export function newSyncCounters(): SyncCounters {
  return { calls: {}, changes: 0, sentBytes: 0, returnedBytes: 0 };
}

function blobBytes(blobs: readonly BlobData[] | undefined): number {
  let n = 0;
  for (const blob of blobs ?? []) n += blob.data.byteLength;
  return n;
}

/** Counts one call of `method` with `args` that answered `answer`. */
export function countSyncCall(
  counters: SyncCounters,
  method: string,
  args: readonly unknown[],
  answer: unknown,
): void {
  counters.calls[method] = (counters.calls[method] ?? 0) + 1;
  if (method === "putBlobs") counters.sentBytes += blobBytes(args[0] as BlobData[]);
  else if (method === "getBlobs" && Array.isArray(answer))
    counters.returnedBytes += blobBytes(answer as BlobData[]);
  else if (method === "applyBatch") {
    const batch = args[0] as SyncBatch | undefined;
    counters.sentBytes += blobBytes(batch?.blobs);
    if ((answer as { status?: string } | undefined)?.status === "applied")
      counters.changes += batch?.changes.length ?? 0;
  }
}

/** The counters flattened for a metrics line: `syncCalls`, `sync.<method>`, `syncChanges`, `syncSentBytes`, `syncReturnedBytes`. */
export function syncMetrics(counters: SyncCounters): Record<string, number> {
  const out: Record<string, number> = {
    syncCalls: Object.values(counters.calls).reduce((a, b) => a + b, 0),
    syncChanges: counters.changes,
    syncSentBytes: counters.sentBytes,
    syncReturnedBytes: counters.returnedBytes,
  };
  for (const [method, n] of Object.entries(counters.calls)) out[`sync.${method}`] = n;
  return out;
}
