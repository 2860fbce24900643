/**
 * The shell runtime: a bash script run by just-bash inside a Dynamic Worker (Worker Loader),
 * never in the DO's isolate. Each computer keeps one loaded Worker per bundle version and
 * egress policy (warm starts in milliseconds) under an id of its own, kept in its storage: the
 * isolate's spare (shell-spares.ts) when one was ready at its first shell exec, else a fresh
 * random id, never another computer's. Every exec gets fresh capabilities (its filesystem over
 * RPC, output, services) through the entrypoint call. The guest enforces the timeout itself
 * (timer and just-bash's deadline) plus loop/command caps; the DO's backstop kill follows a
 * short grace, and the loader's CPU limit stops a guest that never yields.
 */

import type { Egress } from "../egress/egress.ts";
import { egressEnabled } from "../egress/egress-policy.ts";
import type { ExecRequest, RuntimeHandle, RuntimeSink } from "../exec/runtime.ts";
import type { ShellGuest } from "../guest/shell-guest.ts";
import { SHELL_GUEST, SHELL_GUEST_COMPATIBILITY_FLAGS, shellGuestVersion } from "./guest-code.ts";
import { GuestRuntime, type GuestRuntimeDeps } from "./guest-runtime.ts";
import type { ShellRequest } from "./guest-wire.ts";
import type { ShellSpares } from "./shell-spares.ts";

/** Loop iterations one script may run (each `while`/`for`/`until` loop, just-bash's cap). */
export const SHELL_MAX_LOOP_ITERATIONS = 1_000_000;
/** Commands one script may run. */
export const SHELL_MAX_COMMANDS = 1_000_000;
/** CPU a spare's warm-up call may use (it only loads the bundle). */
const WARM_CPU_MS = 10_000;

/** A stable key of a policy, for the loader's cache id. */
export function egressKey(egress: Egress): string {
  return typeof egress === "string" ? egress : `allow:${[...egress.allow].sort().join(",")}`;
}

/** What the loaded Worker's code depends on: a spare or a kept id serves only the same key. */
export function shellCodeKey(egress: Egress): string {
  return `${shellGuestVersion()}:${egressKey(egress)}`;
}

/** The loader id a computer runs its shell execs under, for the code of `key`. */
export interface KeptShellIsolate {
  key: string;
  id: string;
}

/** What the shell runtime needs beyond a guest's deps. */
export interface ShellRuntimeDeps extends GuestRuntimeDeps {
  /** The computer's kept isolate id (its storage: gone with the computer). */
  isolate: { get(): KeptShellIsolate | undefined; put(kept: KeptShellIsolate): void };
  /** This isolate's spares; undefined: every computer loads its own. */
  spares: ShellSpares | undefined;
}

/** Runs bash scripts in just-bash. */
export class ShellRuntime extends GuestRuntime<ShellRuntimeDeps> {
  readonly name = "shell";

  async start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle> {
    const egress = this.deps.egress();
    const { id, spare } = this.#isolateId(egress);
    const guest = this.#guest(id, egress, this.timeoutMs(request));
    const shellRequest: ShellRequest = {
      script: request.source,
      cwd: request.cwd,
      env: request.env,
      stdin: request.stdin,
      network: egressEnabled(egress),
      limits: {
        timeoutMs: this.timeoutMs(request),
        maxLoopIterations: SHELL_MAX_LOOP_ITERATIONS,
        maxCommandCount: SHELL_MAX_COMMANDS,
        maxOutputBytes: request.outputCap,
      },
    };
    const handle = this.runSession(request, sink, (capabilities) => guest.run(shellRequest, capabilities));
    if (!spare) return handle;
    // Counted, so a benchmark shows whether a new computer's first exec found a spare.
    return {
      ...handle,
      done: handle.done.then((outcome) => ({ ...outcome, metrics: { ...outcome.metrics, shellSpare: 1 } })),
    };
  }

  /** The computer's id for `egress`'s code: kept, else the isolate's spare, else a fresh one. */
  #isolateId(egress: Egress): { id: string; spare: boolean } {
    const key = shellCodeKey(egress);
    const kept = this.deps.isolate.get();
    if (kept?.key === key) return { id: kept.id, spare: false };
    // An allow-list's outbound is a gateway binding made in the warming DO's context: spares
    // only for `none` and `all`, whose outbound is no object at all.
    const spares = typeof egress === "string" ? this.deps.spares : undefined;
    const taken = spares?.take(key);
    const id = taken ?? `shell:${key}:${crypto.randomUUID()}`;
    this.deps.isolate.put({ key, id });
    // The next computer's spare, warmed in this DO's context once the isolate is idle.
    spares?.refill(key, (spareId) => this.#guest(spareId, egress, WARM_CPU_MS).warm());
    return { id, spare: taken !== undefined };
  }

  #guest(id: string, egress: Egress, cpuMs: number) {
    const worker = this.deps
      .loader()
      .get(id, () =>
        this.workerCode(egress, "shell.js", { "shell.js": SHELL_GUEST }, SHELL_GUEST_COMPATIBILITY_FLAGS),
      );
    return worker.getEntrypoint<ShellGuest>("ShellGuest", { limits: { cpuMs } });
  }
}
