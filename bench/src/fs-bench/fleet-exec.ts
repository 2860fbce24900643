/**
 * What the fleet scenarios do with one computer, through @computer/sdk: a container exec whose
 * events are stamped with their arrival time, the sync check of a result, and a full count of
 * a directory as the Durable Object lists it.
 */
import type { Computer, ExecEvent, ExecResult } from "@computer/sdk";

/** One exec event and when it arrived (performance.now()). */
export type Arrival = ExecEvent & { at: number };

/** Throws unless the exec completed with exit code 0 and its writes are in the Durable Object. */
export function assertSynced(result: ExecResult): void {
  if (result.status !== "completed" || result.exitCode !== 0 || result.sync.status !== "complete")
    throw new Error(`exec did not complete and sync: ${JSON.stringify(result).slice(0, 500)}`);
}

/** Runs `source` in the container runtime as a stream; every event with its arrival time. */
export async function containerArrivals(
  computer: Computer,
  source: string,
  timeoutMs = 600_000,
  env?: Record<string, string>,
): Promise<Arrival[]> {
  const stream = await computer.exec.stream({
    runtime: "container",
    source,
    timeoutMs,
    ...(env ? { env } : {}),
  });
  const arrivals: Arrival[] = [];
  for await (const event of stream) arrivals.push({ ...event, at: performance.now() });
  return arrivals;
}

/** Runs `source` in the container runtime; the finished result. */
export function containerExec(computer: Computer, source: string, timeoutMs = 120_000): Promise<ExecResult> {
  return computer.exec.run({ runtime: "container", source, timeoutMs });
}

/** How many entries directory `path` has, all pages counted. */
export async function countEntries(computer: Computer, path: string): Promise<number> {
  let count = 0;
  for await (const _ of computer.files.entries(path, { pageSize: 10_000 })) count++;
  return count;
}
