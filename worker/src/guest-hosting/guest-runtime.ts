/**
 * What the two Dynamic Worker runtimes (shell-runtime.ts, js-runtime.ts) share: the DO's deps,
 * the timeouts of a guest exec, the Worker code a guest is loaded from (the guest
 * compatibility settings and the outbound its egress allows) and the session that runs it.
 */
import type { Egress } from "../egress/egress.ts";
import type { ExecRequest, Runtime, RuntimeHandle, RuntimeName, RuntimeSink } from "../exec/runtime.ts";
import { GUEST_COMPATIBILITY_DATE, GUEST_COMPATIBILITY_FLAGS } from "./guest-code.ts";
import type { GuestSession } from "./guest-session.ts";
import type { GuestCapabilities, GuestOutcome } from "./guest-wire.ts";

/** What a guest runtime needs from the DO. */
export interface GuestRuntimeDeps {
  loader(): WorkerLoader;
  computerId(): string;
  egress(): Egress;
  /** The guest's globalOutbound under `egress` (egress-gateway.ts). */
  outbound(egress: Egress): Fetcher | null | undefined;
  /** A session (capabilities + handle) for one exec. */
  session(request: ExecRequest, sink: RuntimeSink): GuestSession;
}

/** A runtime whose execs run in a Dynamic Worker, never in the DO's isolate. */
export abstract class GuestRuntime<Deps extends GuestRuntimeDeps = GuestRuntimeDeps> implements Runtime {
  abstract readonly name: RuntimeName;
  readonly defaultTimeoutMs = 60_000;
  readonly maxTimeoutMs = 15 * 60_000;
  /** The guest enforces the timeout itself; the DO's backstop kill follows this grace. */
  readonly timeoutGraceMs = 2_000;
  protected readonly deps: Deps;

  constructor(deps: Deps) {
    this.deps = deps;
  }

  abstract start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle>;

  /** The exec's timeout: the guest's own timer and the loader's CPU limit. */
  protected timeoutMs(request: ExecRequest): number {
    return request.timeoutMs ?? this.defaultTimeoutMs;
  }

  /** The Worker code of a guest whose main module is `mainModule`, under `egress` (and `flags`). */
  protected workerCode(
    egress: Egress,
    mainModule: string,
    modules: WorkerLoaderWorkerCode["modules"],
    flags: string[] = GUEST_COMPATIBILITY_FLAGS,
  ): WorkerLoaderWorkerCode {
    return {
      compatibilityDate: GUEST_COMPATIBILITY_DATE,
      compatibilityFlags: flags,
      mainModule,
      modules,
      globalOutbound: this.deps.outbound(egress),
    };
  }

  /** Runs one exec through a fresh session: `run` gets the exec's capabilities. */
  protected runSession(
    request: ExecRequest,
    sink: RuntimeSink,
    run: (capabilities: GuestCapabilities) => Promise<GuestOutcome>,
  ): RuntimeHandle {
    const session = this.deps.session(request, sink);
    return session.handle(run(session.capabilities()));
  }
}
