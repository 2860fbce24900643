/**
 * One timed exec for the exec benchmark, through @computer/sdk: the client-side round trip of
 * a buffered `POST /exec`, with the runtime's own `durationMs` and its `X-Exec-Metrics`
 * counters (RPC round trips of shell/js).
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

/** Runs `source` on `runtime` and times it; throws unless it completed with exit code 0. */
export async function timedExec(
  computer: Computer,
  runtime: Runtime,
  source: string,
  timeoutMs = 300_000,
): Promise<TimedExec> {
  const started = performance.now();
  const result = await computer.exec.run({ runtime, source, timeoutMs });
  const ms = performance.now() - started;
  if (result.status !== "completed" || result.exitCode !== 0) {
    throw new Error(`exec ${result.status} (${result.exitCode}): ${result.stderr.slice(0, 300)}`);
  }
  const { status, exitCode, durationMs, metrics, stderr } = result;
  return { ms, status, exitCode, durationMs, metrics, stderr };
}
