/**
 * What the fleet scenarios do with one computer, through @computer/sdk: a container exec whose
 * events are stamped with their arrival time, the sync check of a result, and a full count of
 * a directory as the Durable Object lists it.
 */
import type { Computer, ExecEvent, ExecResult, RunResult } from "@computer/sdk";

/** One exec event and when it arrived (performance.now()). */
export type Arrival = ExecEvent & { at: number };

/** Throws unless the exec completed with exit code 0 and its writes are in the Durable Object. */
export function assertSynced(result: ExecResult): void {
  if (result.status !== "completed" || result.exitCode !== 0 || result.sync.status !== "complete")
    throw new Error(`exec did not complete and sync: ${JSON.stringify(result).slice(0, 500)}`);
}

/** A streamed container exec: every event with its arrival time, and the DO's counters of it. */
export interface Streamed {
  events: Arrival[];
  /** `X-Exec-Metrics` read after the exit: the DO's SQL statements and sync round trips. */
  metrics: Record<string, number>;
}

/** Runs `source` in the container runtime as a stream. */
export async function containerArrivals(
  computer: Computer,
  source: string,
  timeoutMs = 600_000,
  env?: Record<string, string>,
): Promise<Streamed> {
  const stream = await computer.exec.stream({
    runtime: "container",
    source,
    timeoutMs,
    ...(env ? { env } : {}),
  });
  const events: Arrival[] = [];
  for await (const event of stream) events.push({ ...event, at: performance.now() });
  return { events, metrics: await computer.exec.metrics(stream.id) };
}

/** Runs `source` in the container runtime; the finished result with the runtime's counters. */
export function containerExec(computer: Computer, source: string, timeoutMs = 120_000): Promise<RunResult> {
  return computer.exec.run({ runtime: "container", source, timeoutMs });
}

/** How many entries directory `path` has, all pages counted. */
export async function countEntries(computer: Computer, path: string): Promise<number> {
  let count = 0;
  for await (const _ of computer.files.entries(path, { pageSize: 10_000 })) count++;
  return count;
}
