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
import type { ExecRequest, Runtime, RuntimeHandle, RuntimeSink } from "../exec/runtime.ts";
import type { ShellGuest } from "../guest/shell-guest.ts";
import {
  GUEST_COMPATIBILITY_DATE,
  GUEST_COMPATIBILITY_FLAGS,
  SHELL_GUEST,
  shellGuestVersion,
} from "./guest-code.ts";
import type { GuestSession } from "./guest-session.ts";
import type { ShellRequest } from "./guest-wire.ts";

/** Loop iterations one script may run (each `while`/`for`/`until` loop, just-bash's cap). */
export const SHELL_MAX_LOOP_ITERATIONS = 1_000_000;
/** Commands one script may run. */
export const SHELL_MAX_COMMANDS = 1_000_000;

/** What the shell runtime needs from the DO. */
export interface GuestRuntimeDeps {
  loader(): WorkerLoader;
  computerId(): string;
  egress(): Egress;
  /** The guest's globalOutbound under `egress` (egress-gateway.ts). */
  outbound(egress: Egress): Fetcher | null | undefined;
  /** A session (capabilities + handle) for one exec. */
  session(request: ExecRequest, sink: RuntimeSink): GuestSession;
}

/** A stable key of a policy, for the loader's cache id. */
export function egressKey(egress: Egress): string {
  return typeof egress === "string" ? egress : `allow:${[...egress.allow].sort().join(",")}`;
}

/** Runs bash scripts in just-bash. */
export class ShellRuntime implements Runtime {
  readonly name = "shell";
  readonly defaultTimeoutMs = 60_000;
  readonly maxTimeoutMs = 15 * 60_000;
  readonly timeoutGraceMs = 2_000;
  readonly #deps: GuestRuntimeDeps;

  constructor(deps: GuestRuntimeDeps) {
    this.#deps = deps;
  }

  async start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle> {
    const egress = this.#deps.egress();
    const id = `shell:${shellGuestVersion()}:${this.#deps.computerId()}:${egressKey(egress)}`;
    const worker = this.#deps.loader().get(id, () => ({
      compatibilityDate: GUEST_COMPATIBILITY_DATE,
      compatibilityFlags: GUEST_COMPATIBILITY_FLAGS,
      mainModule: "shell.js",
      modules: { "shell.js": SHELL_GUEST },
      globalOutbound: this.#deps.outbound(egress),
    }));
    const guest = worker.getEntrypoint<ShellGuest>("ShellGuest", {
      limits: { cpuMs: request.timeoutMs ?? this.defaultTimeoutMs },
    });
    const shellRequest: ShellRequest = {
      script: request.source,
      cwd: request.cwd,
      env: request.env,
      stdin: request.stdin,
      network: egressEnabled(egress),
      limits: {
        timeoutMs: request.timeoutMs ?? this.defaultTimeoutMs,
        maxLoopIterations: SHELL_MAX_LOOP_ITERATIONS,
        maxCommandCount: SHELL_MAX_COMMANDS,
        maxOutputBytes: request.outputCap,
      },
    };
    const session = this.#deps.session(request, sink);
    return session.handle(guest.run(shellRequest, session.capabilities()));
  }
}
