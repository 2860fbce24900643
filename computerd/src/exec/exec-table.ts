/**
 * The daemon's execs by id: starts them, finds them (in memory, then in their log files),
 * kills them, and lets finished ones go after a while so memory stays bounded.
 */
import { mkdirSync } from "node:fs";
import { FsError } from "@computer/vfs";
import { ExecLogFile, execLogPath, readExecLogFile, type StoredExec } from "./exec-log-file.ts";
import { type ExecDefaults, planExec } from "./exec-spec.ts";
import { Exec, type RunnerOptions } from "./runner.ts";
import type { ExecResult, ExecRunning } from "./types.ts";

/** Everything the table needs to run and keep execs. */
export interface ExecTableOptions extends RunnerOptions {
  defaults: ExecDefaults;
  /** Finished execs kept in memory (the oldest go first); their log files stay. */
  retainFinished: number;
  /** Directory for per-exec log files; none: memory only. */
  logDir?: string;
}

/** The execs of one daemon. */
export class ExecTable {
  readonly #options: ExecTableOptions;
  readonly #execs = new Map<string, Exec>();
  readonly #finished: string[] = [];

  constructor(options: ExecTableOptions) {
    this.#options = options;
    if (options.logDir) mkdirSync(options.logDir, { recursive: true, mode: 0o700 });
  }

  /**
   * Checks `request` (untrusted; ExecSpec-shaped) and starts it. Throws FsError EINVAL for a
   * bad request, EEXIST for an id in use. Spawn failures are results, not throws.
   */
  start(request: unknown): Exec {
    const plan = planExec(request, this.#options.defaults);
    if (this.#execs.has(plan.id)) throw new FsError("EEXIST", "exec", undefined, `exec ${plan.id} exists`);
    const { logDir } = this.#options;
    const file = logDir ? new ExecLogFile(execLogPath(logDir, plan.id)) : undefined;
    const exec = new Exec(plan, this.#options, file);
    this.#execs.set(plan.id, exec);
    void exec.done.then(() => this.#retire(plan.id));
    return exec;
  }

  /** The exec with this id while it is in memory. */
  get(id: string): Exec | undefined {
    return this.#execs.get(id);
  }

  /** The exec, or what its log file kept once it has left memory; undefined when unknown. */
  async find(id: string): Promise<Exec | StoredExec | undefined> {
    const exec = this.#execs.get(id);
    if (exec) return exec;
    const { logDir } = this.#options;
    if (!logDir || !/^[A-Za-z0-9_-]{1,128}$/.test(id)) return undefined;
    return readExecLogFile(execLogPath(logDir, id));
  }

  /** SIGKILLs a running exec's process group. False when unknown or already ended. */
  kill(id: string): boolean {
    return this.#execs.get(id)?.kill() ?? false;
  }

  /** Ids of the running execs. */
  running(): string[] {
    return [...this.#execs.values()].filter((exec) => exec.running).map((exec) => exec.id);
  }

  /** Every exec in memory, oldest first: results and running states. */
  list(): (ExecResult | ExecRunning)[] {
    return [...this.#execs.values()].map((exec) => exec.snapshot());
  }

  /** Kills every running exec and waits for their results (daemon shutdown). */
  async shutdown(): Promise<void> {
    const running = [...this.#execs.values()].filter((exec) => exec.running);
    for (const exec of running) exec.kill();
    await Promise.all(running.map((exec) => exec.done));
  }

  #retire(id: string): void {
    this.#finished.push(id);
    while (this.#finished.length > this.#options.retainFinished) {
      const old = this.#finished.shift();
      if (old !== undefined) this.#execs.delete(old);
    }
  }
}
