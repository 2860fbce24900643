/**
 * The js runtime: `source` is an ES module whose default export `(input, ctx)` is called in a
 * fresh Dynamic Worker per exec (Worker Loader `load`, never cached: no state survives an
 * exec). Its relative imports are read from the computer (js-modules.ts); `node:fs/promises`
 * and the trusted `computer:*` modules reach the DO through the exec's capabilities. Limits:
 * the timeout (guest timer, DO backstop), the loader's CPU limit where it is enforced, the
 * output cap, and the source/module size caps.
 */
import type { Vfs } from "@computer/vfs";
import type { ExecRequest, Runtime, RuntimeHandle, RuntimeSink } from "../exec/runtime.ts";
import type { JsGuest } from "../guest/js-guest.ts";
import { GUEST_COMPATIBILITY_DATE, GUEST_COMPATIBILITY_FLAGS, JS_GUEST } from "./guest-code.ts";
import type { JsRequest } from "./guest-wire.ts";
import { collectModules, JS_GUEST_MODULE, type JsModules } from "./js-modules.ts";
import type { GuestRuntimeDeps } from "./shell-runtime.ts";

/** What the js runtime needs beyond the shell's deps: the vfs, to read imported modules. */
export interface JsRuntimeDeps extends GuestRuntimeDeps {
  vfs(): Vfs;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs ES modules. */
export class JsRuntime implements Runtime {
  readonly name = "js";
  readonly defaultTimeoutMs = 60_000;
  readonly maxTimeoutMs = 15 * 60_000;
  readonly timeoutGraceMs = 2_000;
  readonly #deps: JsRuntimeDeps;

  constructor(deps: JsRuntimeDeps) {
    this.#deps = deps;
  }

  async start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle> {
    const egress = this.#deps.egress();
    let graph: JsModules;
    try {
      graph = collectModules(this.#deps.vfs(), request.cwd, request.source);
    } catch (err) {
      sink.output("stderr", `js: cannot load the module graph: ${describe(err)}\n`);
      const code = (err as { code?: unknown }).code;
      return {
        done: Promise.resolve({
          status: "failed",
          exitCode: 1,
          sync: { status: "none", rev: this.#deps.vfs().rev(), conflicts: [] },
          error: { code: typeof code === "string" ? code : "EINVAL", message: describe(err) },
        }),
        kill: async () => undefined,
      };
    }
    const worker = this.#deps.loader().load({
      compatibilityDate: GUEST_COMPATIBILITY_DATE,
      compatibilityFlags: GUEST_COMPATIBILITY_FLAGS,
      mainModule: JS_GUEST_MODULE,
      modules: { [JS_GUEST_MODULE]: JS_GUEST, ...graph.modules },
      globalOutbound: this.#deps.outbound(egress),
      limits: { cpuMs: request.timeoutMs ?? this.defaultTimeoutMs },
    });
    const guest = worker.getEntrypoint<JsGuest>("JsGuest");
    const jsRequest: JsRequest = {
      main: graph.main,
      input: request.input,
      cwd: request.cwd,
      env: request.env,
      stdin: request.stdin,
      execId: request.id,
      timeoutMs: request.timeoutMs ?? this.defaultTimeoutMs,
      maxOutputBytes: request.outputCap,
    };
    const session = this.#deps.session(request, sink);
    return session.handle(guest.run(jsRequest, session.capabilities()));
  }
}
