/**
 * The shell runtime: a bash script run by just-bash inside a Dynamic Worker (Worker Loader),
 * never in the DO's isolate. The loaded Worker is cached per computer, egress policy and
 * bundle version (warm starts in milliseconds); every exec gets fresh capabilities (its
 * filesystem over RPC, output, services) through the entrypoint call. The guest enforces the
 * timeout itself (timer and just-bash's deadline) plus loop/command caps; the DO's backstop
 * kill follows a short grace, and the loader's CPU limit stops a guest that never yields.
 */

import type { Egress } from "../egress/egress.ts";
import { egressEnabled } from "../egress/egress-policy.ts";
import type { ExecRequest, RuntimeHandle, RuntimeSink } from "../exec/runtime.ts";
import type { ShellGuest } from "../guest/shell-guest.ts";
import { SHELL_GUEST, shellGuestVersion } from "./guest-code.ts";
import { GuestRuntime } from "./guest-runtime.ts";
import type { ShellRequest } from "./guest-wire.ts";

/** Loop iterations one script may run (each `while`/`for`/`until` loop, just-bash's cap). */
export const SHELL_MAX_LOOP_ITERATIONS = 1_000_000;
/** Commands one script may run. */
export const SHELL_MAX_COMMANDS = 1_000_000;

/** A stable key of a policy, for the loader's cache id. */
export function egressKey(egress: Egress): string {
  return typeof egress === "string" ? egress : `allow:${[...egress.allow].sort().join(",")}`;
}

/** Runs bash scripts in just-bash. */
export class ShellRuntime extends GuestRuntime {
  readonly name = "shell";

  async start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle> {
    const egress = this.deps.egress();
    const id = `shell:${shellGuestVersion()}:${this.deps.computerId()}:${egressKey(egress)}`;
    const worker = this.deps
      .loader()
      .get(id, () => this.workerCode(egress, "shell.js", { "shell.js": SHELL_GUEST }));
    const guest = worker.getEntrypoint<ShellGuest>("ShellGuest", {
      limits: { cpuMs: this.timeoutMs(request) },
    });
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
    return this.runSession(request, sink, (capabilities) => guest.run(shellRequest, capabilities));
  }
}
