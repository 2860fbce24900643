/**
 * The container runtime: a shell command run by computerd with the computer FUSE-mounted at
 * /workspace. Before the command starts, every DO-side change is pushed to the mirror (a
 * failed push means the command is not run); output streams back through an ExecSink; after
 * exit the DO calls `fence()`, which returns once every container change is applied in the DO.
 * A fence that fails leaves the sync `pending` for the DO's alarm to finish (sync-retry.ts).
 */
import type { ComputerLimits, ExecSpec, FenceResult, SyncConflict } from "@computer/vfs/sync";
import { WORKSPACE_DIR } from "../exec/exec-request.ts";
import type { ExecRequest, Runtime, RuntimeHandle, RuntimeOutcome, RuntimeSink } from "../exec/runtime.ts";
import type { LinkSession } from "./computerd-link.ts";
import { errorCode, sendLimits } from "./container-limits.ts";
import { ExecSinkState, ExecSinkTarget } from "./exec-sink-target.ts";
import { ExecSteps } from "./exec-steps.ts";

/** What the runtime needs from the DO. */
export interface ContainerRuntimeDeps {
  /** A live link (ensures the container); throws ApiError EUNAVAILABLE. */
  connect(): Promise<LinkSession>;
  /** Called when an exec's sync is left pending (schedules the retry). */
  pending(): void;
  /**
   * Called after a fence succeeded at `rev`: it uploaded everything the container held, so the
   * syncs earlier execs left pending are complete too (no need to wait for the retry alarm).
   */
  fenced(rev: number): void;
  /** The computer's limits, sent to computerd with a push (container-limits.ts sendLimits). */
  limits(): ComputerLimits;
  /** The DO's counters now (SQL statements, sync round trips, ...); an exec reports their change. */
  counters?(): Record<string, number>;
}

/** `after - before` of every counter of `after`. */
function difference(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, n] of Object.entries(after)) out[name] = n - (before[name] ?? 0);
  return out;
}

/** What an exec whose upload the DO's quota refused says about it. */
export const QUOTA_REFUSED =
  "the computer's quota refused the container's changes (no space left on device): they stay " +
  "in the container, not synced; delete files there (or raise the quota) and the next exec syncs";

/**
 * A cwd under /workspace as a path relative to the workspace ("." for the root): computerd
 * resolves it against wherever the computer is mounted on its side, which is /workspace in the
 * image and in the bubblewrap sandbox, but the host folder when `computerd host` runs commands
 * unsandboxed (`--sandbox none`), where an absolute /workspace does not exist.
 */
export function workspaceRelative(cwd: string): string {
  if (cwd === WORKSPACE_DIR) return ".";
  return cwd.startsWith(`${WORKSPACE_DIR}/`) ? cwd.slice(WORKSPACE_DIR.length + 1) : cwd;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function failed(code: string, message: string, sync: RuntimeOutcome["sync"]): RuntimeOutcome {
  return { status: "failed", exitCode: null, sync, error: { code, message } };
}

/** Runs commands in the computer's container. */
export class ContainerRuntime implements Runtime {
  readonly name = "container";
  readonly defaultTimeoutMs = 10 * 60 * 1000;
  readonly maxTimeoutMs = 60 * 60 * 1000;
  /** computerd enforces the timeout; the DO steps in only if it never reports. */
  readonly timeoutGraceMs = 15_000;
  readonly #deps: ContainerRuntimeDeps;

  constructor(deps: ContainerRuntimeDeps) {
    this.#deps = deps;
  }

  async start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle> {
    const before = this.#deps.counters?.();
    const steps = new ExecSteps();
    const session = await this.#deps.connect();
    steps.reached("doConnectMs");
    const conflicts: SyncConflict[] = [];
    try {
      // Sent beside the push (capnweb keeps the order): the quota is in place before the command.
      const [, report] = await Promise.all([sendLimits(session, this.#deps.limits()), session.push.drain()]);
      conflicts.push(...report.conflicts);
      steps.reached("doPushMs");
    } catch (err) {
      const outcome = failed("EIO", `sync push to the container failed: ${describe(err)}`, {
        status: "none",
        conflicts: [],
      });
      return { done: Promise.resolve(outcome), kill: async () => undefined };
    }
    const spec: ExecSpec = {
      id: request.id,
      command: request.source,
      cwd: workspaceRelative(request.cwd),
      env: request.env,
      outputCap: request.outputCap,
    };
    if (request.timeoutMs !== undefined) spec.timeoutMs = request.timeoutMs;
    if (request.stdin !== undefined) spec.stdin = request.stdin;
    if (request.detached) spec.detached = true;
    const state = new ExecSinkState(request.id, sink);
    try {
      await session.daemon.exec(spec, new ExecSinkTarget(state));
      steps.reached("doStartMs");
    } catch (err) {
      const outcome = failed("EIO", `computerd could not start the command: ${describe(err)}`, {
        status: "none",
        conflicts,
      });
      return { done: Promise.resolve(outcome), kill: async () => undefined };
    }
    const finished = this.#finish(session, state, conflicts, request.detached, steps);
    const counters = this.#deps.counters;
    return {
      // What the DO did for this exec, from before its push to after its fence.
      done:
        before === undefined || counters === undefined
          ? finished
          : finished.then((outcome) => ({
              ...outcome,
              metrics: { ...difference(before, counters()), ...steps.durations },
            })),
      kill: async () => {
        try {
          await session.daemon.kill(request.id);
        } catch {
          // The link is gone; the exec ends as lost.
        }
      },
    };
  }

  async #finish(
    session: LinkSession,
    state: ExecSinkState,
    conflicts: SyncConflict[],
    detached: boolean,
    steps: ExecSteps,
  ): Promise<RuntimeOutcome> {
    const ended = await Promise.race([
      state.exited.then((exit) => ({ exit })),
      session.broken.then((reason) => ({ lost: reason })),
    ]);
    steps.reached("doRunMs");
    if ("lost" in ended) {
      this.#deps.pending();
      const sync = { status: "pending" as const, conflicts };
      // The container stopped (idle, crash, relaunch) or its link did: computerd kills a
      // background process whose link is gone, so it ended killed, for this reason.
      if (detached) {
        return {
          status: "killed",
          exitCode: null,
          sync,
          error: { code: "EIO", message: `the computer's container stopped: ${ended.lost.message}` },
        };
      }
      return failed("EIO", `lost the link to the container: ${ended.lost.message}`, sync);
    }
    const { exit } = ended;
    let fence: FenceResult;
    try {
      fence = await session.fence();
    } catch (err) {
      this.#deps.pending();
      const outcome: RuntimeOutcome = {
        status: exit.status,
        exitCode: exit.exitCode,
        sync: { status: "pending", conflicts },
      };
      // The DO refused the upload (its room is smaller than the container thought): say so.
      if (errorCode(err) === "ENOSPC") outcome.error = { code: "ENOSPC", message: QUOTA_REFUSED };
      return outcome;
    }
    steps.reached("doFenceMs");
    this.#deps.fenced(fence.rev);
    return {
      status: exit.status,
      exitCode: exit.exitCode,
      sync: { status: "complete", rev: fence.rev, conflicts: [...conflicts, ...fence.conflicts] },
    };
  }
}
