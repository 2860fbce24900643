/**
 * One timed exec, through @computer/sdk: the client-side round trip of a buffered `POST /exec`
 * (request sent → whole result parsed), with the exec's own `durationMs` as the Durable Object
 * journals it (commandMs: from its start to its end, the container's push, command and fence
 * included) and its `X-Exec-Metrics` counters. The exec round trip rows of both benchmarks
 * (bench:exec and bench:fs's fleet) time exactly this, warm (after the computer's first exec
 * and WARM_UP_CALLS more).
 */
import type { Computer, RuntimeName } from "@computer/sdk";

/** The runtimes of docs/API.md. */
export type Runtime = RuntimeName;

/** One timed exec. */
export interface TimedExec {
  /** Client-side round trip (request sent → result parsed), ms. */
  ms: number;
  status: string;
  exitCode: number | null;
  /** The exec's own duration as the API reports it, ms. */
  durationMs: number;
  metrics: Record<string, number>;
  stderr: string;
}

/**
 * Untimed calls of the trivial program before a round trip's samples, in both benchmarks
 * (bench:exec's `--warmup`, bench:fs's round-trip scenarios per `--warmup` repetition): the
 * first calls after a computer's first exec run code that has not been optimised yet (the
 * Worker's, the DO's, a new `computerd serve`'s) beside the spare daemon the host starts after
 * a hand-out; under load they took 2–3× the later calls (docs/BENCH.md, "Why bench:fs and
 * bench:exec disagreed").
 */
export const WARM_UP_CALLS = 20;

/** What the round trip rows say they time. */
export const ROUND_TRIP = `POST /exec (buffered) until the whole result is parsed, warm (after the first call and ${WARM_UP_CALLS} more); a container result must say sync complete`;

/**
 * Runs `source` on `runtime` and times it; throws unless it completed with exit code 0 (and, in
 * the container, with its sync complete: the DO holds what the command wrote).
 */
export async function timedExec(
  computer: Computer,
  runtime: Runtime,
  source: string,
  timeoutMs = 300_000,
): Promise<TimedExec> {
  const started = performance.now();
  const result = await computer.exec.run({ runtime, source, timeoutMs });
  const ms = performance.now() - started;
  const synced = runtime !== "container" || result.sync.status === "complete";
  if (result.status !== "completed" || result.exitCode !== 0 || !synced) {
    throw new Error(
      `exec ${result.status} (${result.exitCode}, sync ${result.sync.status}): ${result.stderr.slice(0, 300)}`,
    );
  }
  const { status, exitCode, durationMs, metrics, stderr } = result;
  return { ms, status, exitCode, durationMs, metrics, stderr };
}
