/**
 * One shell/js exec seen from the DO: the capabilities handed to the Dynamic Worker (its
 * filesystem, output, services, and the `started` callback through which the guest hands back
 * its kill switch), and the RuntimeHandle the exec manager watches. Killing answers at once:
 * the guest is told to stop, but the DO never waits on a guest that may be spinning; its
 * capabilities are revoked, so whatever it still does reaches nothing.
 */
import { RpcTarget } from "cloudflare:workers";
import type { Vfs } from "@computer/vfs";
import type { ExecMetrics, RuntimeHandle, RuntimeOutcome, RuntimeSink } from "../exec/runtime.ts";
import { GuestFsTarget } from "./guest-fs-target.ts";
import type { GuestServicesTarget } from "./guest-services.ts";
import type {
  GuestCapabilities,
  GuestKillSwitch,
  GuestOutcome,
  GuestOutputApi,
  OutputPiece,
} from "./guest-wire.ts";

/** Receives a guest's output until the exec ends. */
class OutputTarget extends RpcTarget implements GuestOutputApi {
  readonly #sink: RuntimeSink;
  closed = false;
  calls = 0;

  constructor(sink: RuntimeSink) {
    super();
    this.#sink = sink;
  }

  write(pieces: OutputPiece[]): void {
    if (this.closed || !Array.isArray(pieces)) return;
    this.calls++;
    for (const piece of pieces) {
      if ((piece?.stream === "stdout" || piece?.stream === "stderr") && typeof piece.data === "string") {
        this.#sink.output(piece.stream, piece.data);
      }
    }
  }
}

/** What a session needs from the DO. */
export interface GuestSessionDeps {
  vfs(): Vfs;
  /** Called after the guest changed the tree. */
  changed(): void;
  services: GuestServicesTarget;
}

/** How workerd words a guest stopped by its `limits.cpuMs`. */
const CPU_LIMIT = /exceeded (its )?CPU|CPU time limit/i;

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

type Disposable = { [Symbol.dispose]?: () => void; dup?: () => unknown };

/** The DO side of one guest exec. */
export class GuestSession {
  readonly fs: GuestFsTarget;
  readonly #output: OutputTarget;
  readonly #services: GuestServicesTarget;
  readonly #vfs: () => Vfs;
  #killSwitch: GuestKillSwitch | undefined;
  #killRequested = false;
  #ended = false;

  constructor(deps: GuestSessionDeps, sink: RuntimeSink) {
    this.fs = new GuestFsTarget({ vfs: deps.vfs, changed: deps.changed });
    this.#output = new OutputTarget(sink);
    this.#services = deps.services;
    this.#vfs = deps.vfs;
  }

  /** The capabilities to pass to the guest's `run`. */
  capabilities(): GuestCapabilities {
    return {
      fs: this.fs,
      output: this.#output,
      services: this.#services,
      started: (killSwitch: GuestKillSwitch) => {
        // A stub received as a parameter is disposed when the call returns unless duplicated.
        const kept = (killSwitch as GuestKillSwitch & Disposable).dup?.();
        // The guest does not wait for this call: it may arrive after the exec ended.
        if (this.#ended) {
          (kept as Disposable | undefined)?.[Symbol.dispose]?.();
          return;
        }
        this.#killSwitch = (kept ?? killSwitch) as GuestKillSwitch;
        if (this.#killRequested) this.#pull();
      },
    };
  }

  /**
   * RPC counters so far: `fsCalls` round trips to the filesystem carrying `fsOps` ops
   * (`fsWrites` of them changes), and `outputCalls` output deliveries.
   */
  metrics(): ExecMetrics {
    const fs = this.fs.stats;
    return { fsCalls: fs.calls, fsOps: fs.ops, fsWrites: fs.writes, outputCalls: this.#output.calls };
  }

  #pull(): void {
    const killSwitch = this.#killSwitch;
    if (killSwitch === undefined) return;
    Promise.resolve()
      .then(() => killSwitch.kill())
      .catch(() => undefined);
  }

  #close(): void {
    this.#ended = true;
    this.fs.revoke();
    this.#services.revoke();
    this.#output.closed = true;
  }

  /** Watches the guest's `run` call: settles with its outcome, or `killed` as soon as kill() is called. */
  handle(call: Promise<GuestOutcome>): RuntimeHandle {
    let killed: (outcome: RuntimeOutcome) => void = () => undefined;
    const killedOutcome = new Promise<RuntimeOutcome>((resolve) => {
      killed = resolve;
    });
    const ran = call.then(
      (outcome) => this.#result(outcome),
      (err: unknown): RuntimeOutcome =>
        // The loader's CPU limit ends the guest's call with an exception: that is a timeout.
        CPU_LIMIT.test(describe(err))
          ? {
              status: "timeout",
              exitCode: null,
              sync: this.#sync(),
              error: { code: "ETIMEDOUT", message: `the exec used up its CPU time: ${describe(err)}` },
              metrics: this.metrics(),
            }
          : {
              status: "failed",
              exitCode: null,
              sync: this.#sync(),
              error: { code: "EIO", message: `the runtime failed: ${describe(err)}` },
              metrics: this.metrics(),
            },
    );
    const done = Promise.race([ran, killedOutcome]).then((outcome) => {
      this.#close();
      const disposable = this.#killSwitch as (GuestKillSwitch & Disposable) | undefined;
      disposable?.[Symbol.dispose]?.();
      return outcome;
    });
    return {
      done,
      kill: async () => {
        if (this.#ended || this.#killRequested) return;
        this.#killRequested = true;
        this.#pull();
        killed({ status: "killed", exitCode: null, sync: this.#sync(), metrics: this.metrics() });
      },
    };
  }

  #sync(): RuntimeOutcome["sync"] {
    return { status: "none", rev: this.#vfs().rev(), conflicts: [] };
  }

  #result(outcome: GuestOutcome): RuntimeOutcome {
    const result: RuntimeOutcome = {
      status: outcome.status,
      exitCode: outcome.exitCode,
      sync: this.#sync(),
      truncated: outcome.truncated === true,
      metrics:
        typeof outcome.isolateRuns === "number"
          ? { ...this.metrics(), guestIsolateRuns: outcome.isolateRuns }
          : this.metrics(),
    };
    if (outcome.value !== undefined) result.value = outcome.value;
    if (outcome.error !== undefined) result.error = outcome.error;
    return result;
  }
}
