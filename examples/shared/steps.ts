/**
 * The steps of an example, each timed and logged as it ends (`pdf-report: pandoc in the
 * container … 1.42 s`), so a run shows where its time goes; and the check every container
 * command of an example passes: it completed, exit code 0, its changes synced back.
 */
import type { ExecResult } from "@computer/sdk";

/** One finished step and its wall time. */
export interface StepTime {
  step: string;
  ms: number;
}

/** Runs and times the steps of one example. */
export class Steps {
  readonly times: StepTime[] = [];
  readonly #prefix: string;
  readonly #log: (line: string) => void;
  /** Gets the output of the steps' commands as it comes (default: stderr). */
  readonly output: (text: string) => void;

  /**
   * `log` gets one line per finished step, `output` the commands' output as it streams in
   * (default: both to stderr, so stdout stays the links alone).
   */
  constructor(
    example: string,
    log: (line: string) => void = (line) => console.error(line),
    output: (text: string) => void = (text) => process.stderr.write(text),
  ) {
    this.#prefix = example;
    this.#log = log;
    this.output = output;
  }

  /** Runs `fn` as the step `name`. */
  async run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    const value = await fn();
    const ms = Math.round(performance.now() - start);
    this.times.push({ step: name, ms });
    this.#log(
      `${this.#prefix}: ${name} ${".".repeat(Math.max(2, 44 - name.length))} ${(ms / 1000).toFixed(2)} s`,
    );
    return value;
  }
}

/**
 * Throws unless the command completed with exit code 0 and synced back. The error carries the
 * command's output unless it was already shown (`streamed`).
 */
export function succeeded(result: ExecResult, what: string, streamed = false): ExecResult {
  if (result.status === "completed" && result.exitCode === 0 && result.sync.status !== "pending")
    return result;
  const why = result.error ? `${result.error.code}: ${result.error.message}` : `exit code ${result.exitCode}`;
  const output = streamed ? "" : `\n${result.stdout}${result.stderr}`;
  throw new Error(`${what} ${result.status} (${why})${output}`.trimEnd());
}

/** Runs an example's main: its failure is one line on stderr (`example: what failed`) and exit code 1. */
export function main(example: string, run: () => Promise<void>): void {
  run().catch((err: unknown) => {
    console.error(`${example}: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
