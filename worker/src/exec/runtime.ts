/**
 * The one exec contract every runtime implements (container, shell, js): a checked request
 * goes in, output pieces come out through a sink while it runs, and a handle settles with how
 * it ended. Journaling, SSE, timeouts and kill bookkeeping live above this, in exec-manager.ts.
 */

/** The runtimes of docs/API.md. */
export type RuntimeName = "container" | "shell" | "js";

/** Every runtime name, in the order error messages list them. */
export const RUNTIME_NAMES: readonly RuntimeName[] = ["container", "shell", "js"];

/** True for a runtime name of docs/API.md. */
export function isRuntimeName(value: unknown): value is RuntimeName {
  return typeof value === "string" && (RUNTIME_NAMES as readonly string[]).includes(value);
}

/** The two output streams. */
export type OutputStream = "stdout" | "stderr";

/** How an exec ended; `running` only appears in the journal while it has not. */
export type ExecStatus = "running" | "completed" | "failed" | "timeout" | "killed";

/** How a finished exec ended. */
export type FinalStatus = Exclude<ExecStatus, "running">;

/** Where sync stood when a result was produced (docs/API.md `sync`). */
export interface SyncInfo {
  /** `none`: the runtime writes straight to the DO (nothing to sync) or the exec never ran. */
  status: "complete" | "pending" | "none";
  /** The DO's vfs revision once the exec's changes were applied (absent while pending). */
  rev?: number;
  conflicts: unknown[];
}

/** An exec request after validation (exec-request.ts), with its id and effective limits. */
export interface ExecRequest {
  /** `ex_` + random, chosen by the DO. */
  id: string;
  runtime: RuntimeName;
  source: string;
  /** Absolute, under /workspace. */
  cwd: string;
  env: Record<string, string>;
  stdin: string | undefined;
  /** js only. */
  input: unknown;
  /** Effective timeout (capped per runtime); undefined: none (a background process). */
  timeoutMs: number | undefined;
  /** A background process: it outlives the request and ends `killed` when its container stops. */
  detached: boolean;
  /** Bytes of stdout+stderr the journal keeps. */
  outputCap: number;
}

/** Receives a running exec's output, in order. */
export interface RuntimeSink {
  output(stream: OutputStream, data: string): void;
}

/** How a runtime reports the end of an exec. */
export interface RuntimeOutcome {
  status: FinalStatus;
  /** Null when the process never ran or did not exit by itself. */
  exitCode: number | null;
  /** js runtime: the default export's return value. */
  value?: unknown;
  sync: SyncInfo;
  /** Set when the exec could not run (or lost its runtime): what went wrong. */
  error?: { code: string; message: string };
  /** The runtime cut the output at its cap (the journal also marks its own cut). */
  truncated?: boolean;
  /** Deterministic counters of the exec (e.g. RPC round trips), kept beside the result. */
  metrics?: ExecMetrics;
}

/** Counters a runtime reports about one exec (`X-Exec-Metrics` on the buffered result). */
export type ExecMetrics = Record<string, number>;

/** A started exec. */
export interface RuntimeHandle {
  /** Settles once the exec has ended (never rejects: a failure is an outcome). */
  readonly done: Promise<RuntimeOutcome>;
  /** Asks the runtime to stop the exec (SIGKILL or equivalent); `done` then settles `killed`. */
  kill(): Promise<void>;
}

/** One runtime. */
export interface Runtime {
  readonly name: RuntimeName;
  /** Timeout when the request names none. */
  readonly defaultTimeoutMs: number;
  /** Largest timeout a request may ask for. */
  readonly maxTimeoutMs: number;
  /**
   * How long past the timeout the DO waits for the runtime to report it before killing the
   * exec itself (default TIMEOUT_GRACE_MS): a remote runtime enforces the timeout on its side.
   */
  readonly timeoutGraceMs?: number;
  /**
   * Starts `request`. Throws ApiError EUNAVAILABLE (503) when the runtime cannot be reached
   * right now; once it resolves, every failure is reported through `done`.
   */
  start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle>;
}
