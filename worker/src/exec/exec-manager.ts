/**
 * The execs of one Computer DO: starts them on their runtime, numbers and journals their
 * output (up to the cap), fans it out to attached streams, enforces the timeout as a backstop,
 * kills on request and records how each ended. Runtime-independent.
 */
import { ApiError } from "../http/errors.ts";
import {
  DEFAULT_OUTPUT_CAP,
  type ExecBody,
  MAX_BACKGROUND_EXECS,
  MAX_TIMEOUT_MS,
  newExecId,
} from "./exec-request.ts";
import type { ExecJournal, ExecResult, ExecSummary, OutputEvent } from "./journal.ts";
import { OutputBudget } from "./output-cap.ts";
import type {
  ExecMetrics,
  ExecRequest,
  OutputStream,
  Runtime,
  RuntimeHandle,
  RuntimeName,
  RuntimeOutcome,
} from "./runtime.ts";
import type { ExecEvent, ExecEventSource } from "./sse.ts";

/** Extra time a runtime gets past its timeout to report it itself before the DO kills the exec. */
export const TIMEOUT_GRACE_MS = 5_000;
/** How long DELETE waits for a killed exec to report its end. */
const KILL_WAIT_MS = 15_000;
/** Metrics of this many recent execs are kept in memory (they are not journaled). */
const METRICS_KEEP = 100;

/** Receives a live exec's events. */
export type ExecListener = (event: ExecEvent) => void;
type Listener = ExecListener;

/** An exec running in this DO instance. */
class LiveExec {
  readonly id: string;
  readonly runtime: RuntimeName;
  readonly startedMs: number;
  readonly detached: boolean;
  readonly budget: OutputBudget;
  readonly listeners = new Set<Listener>();
  handle: RuntimeHandle | undefined;
  nextSeq = 0;
  timedOut = false;
  /** Settles with the journaled result once the exec has ended. */
  readonly finished: Promise<ExecResult>;
  resolveFinished: (result: ExecResult) => void = () => undefined;

  constructor(request: ExecRequest, startedMs: number) {
    this.id = request.id;
    this.runtime = request.runtime;
    this.detached = request.detached;
    this.startedMs = startedMs;
    this.budget = new OutputBudget(request.outputCap);
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
  }
}

/** Looks up the runtime for a name (undefined: not available in this deployment). */
export type RuntimeLookup = (name: RuntimeName) => Runtime | undefined;

/** The execs of one computer. */
export class ExecManager {
  readonly #journal: ExecJournal;
  readonly #runtimes: RuntimeLookup;
  readonly #now: () => number;
  readonly #live = new Map<string, LiveExec>();
  readonly #metrics = new Map<string, ExecMetrics>();
  #recovered = false;

  constructor(journal: ExecJournal, runtimes: RuntimeLookup, now: () => number = Date.now) {
    this.#journal = journal;
    this.#runtimes = runtimes;
    this.#now = now;
  }

  /**
   * Execs journaled as running that this instance does not run were cut off by a restart of
   * the DO: they are recorded as failed (a container exec's sync stays pending for the retry).
   */
  #recover(): void {
    if (this.#recovered) return;
    this.#recovered = true;
    for (const id of this.#journal.orphans()) {
      if (this.#live.has(id)) continue;
      const known = this.#journal.get(id);
      if (known === undefined) continue;
      // computerd kills a background process whose link to the DO is gone (sink-pump.ts).
      this.#journal.finish(id, {
        status: known.detached === true ? "killed" : "failed",
        exitCode: null,
        durationMs: known.durationMs,
        sync:
          known.runtime === "container"
            ? { status: "pending", conflicts: [] }
            : { status: "none", conflicts: [] },
        truncated: known.truncated,
        lastSeq: known.lastSeq,
        error: { code: "EIO", message: "the computer restarted while this exec ran" },
      });
    }
  }

  /**
   * Starts an exec; resolves once its runtime accepted it. `listener`, if given, is attached
   * before the runtime starts, so it sees every event (uncapped) up to the exit. Throws
   * ApiError EUNAVAILABLE (503, nothing journaled) when the runtime is not available, and
   * EBUSY (409) when a background process would pass MAX_BACKGROUND_EXECS.
   */
  async start(
    body: ExecBody,
    listener?: ExecListener,
  ): Promise<{ id: string; finished: Promise<ExecResult> }> {
    this.#recover();
    const runtime = this.#runtimes(body.runtime);
    if (runtime === undefined) throw new ApiError("EUNAVAILABLE", `runtime ${body.runtime} not available`);
    if (body.detach && this.backgroundCount() >= MAX_BACKGROUND_EXECS) {
      throw new ApiError(
        "EBUSY",
        `this computer already runs ${MAX_BACKGROUND_EXECS} background processes: kill one first (DELETE /exec/:id)`,
      );
    }
    const request: ExecRequest = {
      id: newExecId(),
      runtime: body.runtime,
      source: body.source,
      cwd: body.cwd,
      env: body.env,
      stdin: body.stdin,
      input: body.input,
      // A background process has no timeout unless it asks for one (up to MAX_TIMEOUT_MS).
      timeoutMs: body.detach
        ? body.timeoutMs
        : Math.min(body.timeoutMs ?? runtime.defaultTimeoutMs, runtime.maxTimeoutMs),
      outputCap: DEFAULT_OUTPUT_CAP,
      detached: body.detach,
    };
    if (request.timeoutMs !== undefined) request.timeoutMs = Math.min(request.timeoutMs, MAX_TIMEOUT_MS);
    const live = new LiveExec(request, this.#now());
    if (listener !== undefined) live.listeners.add(listener);
    this.#journal.begin(live.id, live.runtime, live.startedMs, live.detached);
    this.#live.set(live.id, live);
    let handle: RuntimeHandle;
    try {
      handle = await runtime.start(request, { output: (stream, data) => this.#output(live, stream, data) });
    } catch (err) {
      if (err instanceof ApiError && err.code === "EUNAVAILABLE") {
        this.#live.delete(live.id);
        this.#journal.discard(live.id);
        throw err;
      }
      this.#fail(live, err);
      return { id: live.id, finished: live.finished };
    }
    live.handle = handle;
    const timer =
      request.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => {
              live.timedOut = true;
              void handle.kill();
            },
            request.timeoutMs + (runtime.timeoutGraceMs ?? TIMEOUT_GRACE_MS),
          );
    void handle.done.then(
      (outcome) => {
        clearTimeout(timer);
        this.#end(live, outcome);
      },
      (err: unknown) => {
        clearTimeout(timer);
        this.#fail(live, err);
      },
    );
    return { id: live.id, finished: live.finished };
  }

  /** Ends `live` as failed with EIO: the runtime could not start it or lost it (`err` says why). */
  #fail(live: LiveExec, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.#end(live, {
      status: "failed",
      exitCode: null,
      sync: { status: "none", conflicts: [] },
      error: { code: "EIO", message },
    });
  }

  #output(live: LiveExec, stream: OutputStream, data: string): void {
    if (data === "" || !this.#live.has(live.id)) return;
    const event: OutputEvent = { seq: live.nextSeq++, stream, data };
    const stored = live.budget.take(data);
    if (stored !== "") this.#journal.append(live.id, { ...event, data: stored });
    for (const listener of live.listeners) listener({ kind: "output", event });
  }

  #end(live: LiveExec, outcome: RuntimeOutcome): void {
    if (!this.#live.has(live.id)) return;
    this.#live.delete(live.id);
    const status = live.timedOut && outcome.status === "killed" ? "timeout" : outcome.status;
    this.#journal.finish(live.id, {
      status,
      exitCode: outcome.exitCode,
      value: outcome.value,
      durationMs: Math.max(0, this.#now() - live.startedMs),
      sync: outcome.sync,
      truncated: live.budget.truncated || outcome.truncated === true,
      lastSeq: live.nextSeq - 1,
      error: outcome.error,
    });
    if (outcome.metrics !== undefined) {
      this.#metrics.set(live.id, outcome.metrics);
      for (const id of this.#metrics.keys()) {
        if (this.#metrics.size <= METRICS_KEEP) break;
        this.#metrics.delete(id);
      }
    }
    const result = this.#journal.get(live.id);
    if (result === undefined) return;
    for (const listener of live.listeners) listener({ kind: "exit", result });
    live.listeners.clear();
    live.resolveFinished(result);
  }

  /** The result (or running state) of `id`; 404 ENOENT when unknown. */
  get(id: string): ExecResult {
    this.#recover();
    const result = this.#journal.get(id);
    if (result === undefined) throw new ApiError("ENOENT", `no exec '${id}'`);
    const live = this.#live.get(id);
    if (live !== undefined) result.lastSeq = live.nextSeq - 1;
    return result;
  }

  /** The counters the runtime reported for a recent exec of this instance (not journaled). */
  metrics(id: string): ExecMetrics | undefined {
    return this.#metrics.get(id);
  }

  /** The most recent execs, newest first, without their output. */
  list(limit: number): ExecSummary[] {
    this.#recover();
    return this.#journal.list(limit);
  }

  /**
   * Events of `id` after seq `after`: stored ones first, then live ones until the exit event.
   * Replay and subscription happen in one synchronous turn, so no event falls between them.
   */
  events(id: string, after: number): ExecEventSource {
    const result = this.get(id);
    return {
      open: (push) => {
        for (const event of this.#journal.events(id, after)) push({ kind: "output", event });
        const live = this.#live.get(id);
        if (live === undefined) {
          push({ kind: "exit", result: this.#journal.get(id) ?? result });
          return () => undefined;
        }
        const listener: Listener = (event) => {
          if (event.kind === "output" && event.event.seq <= after) return;
          push(event);
        };
        live.listeners.add(listener);
        return () => live.listeners.delete(listener);
      },
    };
  }

  /** Detaches a listener given to `start` (its client went away). */
  detach(id: string, listener: ExecListener): void {
    this.#live.get(id)?.listeners.delete(listener);
  }

  /**
   * Kills a running exec and resolves with its result once it has ended (or after a bounded
   * wait, its running state). An exec that already ended is answered as it is.
   */
  async kill(id: string): Promise<ExecResult> {
    const result = this.get(id);
    const live = this.#live.get(id);
    if (live === undefined) return result;
    await live.handle?.kill();
    const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), KILL_WAIT_MS));
    return (await Promise.race([live.finished, timeout])) ?? this.get(id);
  }

  /** Background processes running in this instance. */
  backgroundCount(): number {
    let count = 0;
    for (const live of this.#live.values()) if (live.detached) count++;
    return count;
  }

  /** True while `id` runs in this instance. */
  isLive(id: string): boolean {
    return this.#live.has(id);
  }

  /** Kills every running exec (the computer is being deleted). */
  async killAll(): Promise<void> {
    await Promise.all([...this.#live.values()].map((live) => live.handle?.kill()));
  }
}
