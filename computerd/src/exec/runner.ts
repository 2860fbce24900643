/**
 * One running command: spawns the wrapper's plan in its own process group, feeds stdin,
 * turns stdout/stderr into log events (capped, in arrival order, paused under back-pressure),
 * enforces the timeout (SIGTERM to the group, SIGKILL after a grace period) and kills on demand.
 */
import { constants } from "node:os";
import { type CommandProcess, spawnDirect } from "./command-process.ts";
import { execEnv } from "./env.ts";
import { ExecLog, type Watermarks } from "./exec-log.ts";
import type { ExecLogFile } from "./exec-log-file.ts";
import type { ExecPlan } from "./exec-spec.ts";
import { OutputLimit } from "./output-limit.ts";
import type { Spawner } from "./spawner.ts";
import type { ExecResult, ExecRunning, ExecStatus, StreamName } from "./types.ts";
import type { CommandWrapper } from "./wrapper.ts";

/** How commands are run: the same for every exec of a daemon. */
export interface RunnerOptions {
  wrapper: CommandWrapper;
  /** The allowlisted daemon environment (env.ts `baseEnv`). */
  baseEnv: Record<string, string>;
  /** After SIGTERM on timeout, SIGKILL follows this much later. */
  killGraceMs: number;
  /** After the command exits, output still arriving (from background children) is read this long. */
  stdioGraceMs: number;
  watermarks: Watermarks;
  /**
   * Descriptors of the daemon that must never reach a command (the FUSE device: a command
   * holding it could answer the mount's requests, and would keep a dead daemon's mount hung).
   * Each is replaced by /dev/null in the child, since libfuse opens /dev/fuse without CLOEXEC.
   */
  sealedFds?: readonly number[];
  /**
   * The spawner commands are started by while it runs (spawner.ts: a spawn from the daemon
   * costs time in proportion to its memory); without one, or when it is down, the daemon
   * spawns them itself.
   */
  spawner?: () => Spawner | undefined;
}

/** Why the daemon ended a command, if it did. */
type EndReason = "timeout" | "kill";

/** A command started by `startExec`; stays readable (log, result) after it ends. */
export class Exec {
  readonly id: string;
  readonly log: ExecLog;
  readonly startedAt: Date;
  /** A background process (it does not count as activity for idle stops). */
  readonly detached: boolean;
  /** Resolves with the result when the command has ended and its output is read. Never rejects. */
  readonly done: Promise<ExecResult>;
  readonly #child: CommandProcess | undefined;
  readonly #limit: OutputLimit;
  readonly #options: RunnerOptions;
  readonly #started = performance.now();
  readonly #timers = new Set<NodeJS.Timeout>();
  #endReason: EndReason | undefined;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #spawnError: Error | undefined;
  #draining = false;
  #resolve: (result: ExecResult) => void = () => {};

  constructor(plan: ExecPlan, options: RunnerOptions, file?: ExecLogFile) {
    this.id = plan.id;
    this.detached = plan.detached;
    this.#options = options;
    this.log = new ExecLog(options.watermarks, file);
    this.#limit = new OutputLimit(plan.outputCap);
    this.startedAt = new Date();
    this.done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    const spawnPlan = options.wrapper({
      command: plan.command,
      cwd: plan.cwd,
      env: execEnv(options.baseEnv, plan.env, plan.cwd),
    });
    const stdin = plan.stdin !== undefined;
    let child: CommandProcess | undefined;
    try {
      // Either way cwd is `/`, never a directory inside the FUSE mount (see wrapper.ts).
      const spawner = options.spawner?.();
      child = spawner?.alive
        ? spawner.spawn(spawnPlan, stdin)
        : spawnDirect(spawnPlan, stdin, options.sealedFds);
    } catch (error) {
      this.#spawnError = error instanceof Error ? error : new Error(String(error));
    }
    this.#child = child;
    if (!child) {
      queueMicrotask(() => this.#finish());
      return;
    }
    this.#wire(child, plan);
  }

  /** The pid once the process runs (0 when its spawn failed). */
  async started(): Promise<number> {
    const child = this.#child;
    if (!child || child.pid !== undefined || !this.running) return this.pid;
    await Promise.race([new Promise((resolve) => child.once("spawn", () => resolve(undefined))), this.done]);
    return this.pid;
  }

  /** The process id of the spawned wrapper (its process group id too); 0 when spawn failed or not yet known. */
  get pid(): number {
    return this.#child?.pid ?? 0;
  }

  /** True until the result is recorded. */
  get running(): boolean {
    return this.log.result === undefined;
  }

  /** The result, or the running state. */
  snapshot(): ExecResult | ExecRunning {
    return (
      this.log.result ?? {
        id: this.id,
        runtime: "container",
        status: "running",
        pid: this.pid,
        startedAt: this.startedAt.toISOString(),
        durationMs: Math.round(performance.now() - this.#started),
        lastSeq: this.log.lastSeq,
        ...(this.detached ? { detached: true as const } : {}),
      }
    );
  }

  /** Kills the command's process group at once (SIGKILL); status "killed". False once it has ended. */
  kill(): boolean {
    if (!this.running) return false;
    // Killing what is left after a normal exit (background children) keeps the exit's status.
    if (!this.#exit) this.#endReason ??= "kill";
    this.#drain();
    this.#child?.signalGroup("SIGKILL");
    return true;
  }

  #wire(child: CommandProcess, plan: ExecPlan): void {
    for (const stream of ["stdout", "stderr"] as const) {
      child[stream]?.on("data", (chunk: Buffer) => this.#output(stream, chunk));
    }
    if (child.stdin && plan.stdin !== undefined) {
      // A command that exits without reading its stdin closes the pipe: not an error.
      child.stdin.on("error", () => {});
      child.stdin.end(plan.stdin);
    }
    this.log.onPressure = (paused) => {
      if (this.#draining) return;
      for (const stream of [child.stdout, child.stderr]) {
        if (paused) stream?.pause();
        else stream?.resume();
      }
    };
    child.on("error", (error) => {
      if (child.pid !== undefined) return;
      this.#spawnError = error;
      setImmediate(() => this.#finish());
    });
    child.on("exit", (code, signal) => {
      this.#exit = { code, signal };
      this.#drain();
      this.#timer(this.#options.stdioGraceMs, () => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      });
    });
    child.on("close", () => this.#finish());
    const { timeoutMs } = plan;
    if (timeoutMs === undefined) return;
    this.#timer(timeoutMs, () => {
      if (this.#exit) return;
      this.#endReason ??= "timeout";
      this.#drain();
      child.signalGroup("SIGTERM");
      this.#timer(this.#options.killGraceMs, () => child.signalGroup("SIGKILL"));
    });
  }

  #timer(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.#timers.add(timer);
  }

  /** From now on output is read at full speed (bounded by the cap): the command is ending. */
  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    this.#child?.stdout?.resume();
    this.#child?.stderr?.resume();
  }

  #output(stream: StreamName, chunk: Buffer): void {
    const kept = this.#limit.take(stream, chunk);
    if (kept && kept.data !== "") this.log.append(stream, kept.data, kept.bytes);
  }

  #finish(): void {
    if (!this.running) return;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    // Stragglers of a command the daemon ended (they ignored SIGTERM or held no pipe) go too.
    if (this.#endReason) this.#child?.signalGroup("SIGKILL");
    for (const stream of ["stdout", "stderr"] as const) {
      const rest = this.#limit.flush(stream);
      if (rest !== "") this.log.append(stream, rest, 0);
    }
    if (this.#spawnError)
      this.log.append("stderr", `computerd: cannot start the command: ${this.#spawnError.message}\n`, 0);
    const marker = this.#limit.marker();
    if (marker) this.log.append(marker.stream, marker.data, 0);
    const { exitCode, signal } = this.#exitCode();
    const result: ExecResult = {
      id: this.id,
      runtime: "container",
      status: this.#status(exitCode),
      exitCode,
      stdout: this.log.text("stdout"),
      stderr: this.log.text("stderr"),
      truncated: this.#limit.droppedBytes > 0,
      droppedBytes: this.#limit.droppedBytes,
      durationMs: Math.round(performance.now() - this.#started),
      startedAt: this.startedAt.toISOString(),
      lastSeq: this.log.lastSeq,
    };
    if (signal !== undefined) result.signal = signal;
    this.log.finish(result);
    this.#resolve(result);
  }

  #exitCode(): { exitCode: number; signal?: string } {
    const exit = this.#exit;
    if (!exit || this.#spawnError) return { exitCode: 127 };
    if (exit.signal) return { exitCode: 128 + (constants.signals[exit.signal] ?? 0), signal: exit.signal };
    return { exitCode: exit.code ?? 0 };
  }

  #status(exitCode: number): ExecStatus {
    if (this.#endReason === "timeout") return "timeout";
    if (this.#endReason === "kill") return "killed";
    return exitCode === 0 ? "completed" : "failed";
  }
}
