/**
 * The js runtime: `source` is an ES module whose default export `(input, ctx)` is called in a
 * fresh Dynamic Worker per exec (Worker Loader `load`, never cached: no state survives an
 * exec). Its relative imports are read from the computer (js-modules.ts); `node:fs/promises`
 * and the trusted `computer:*` modules reach the DO through the exec's capabilities. Limits:
 * the timeout (guest timer, DO backstop), the loader's CPU limit where it is enforced, the
 * output cap, and the source/module size caps.
 */
import type { Vfs } from "@computer/vfs";
import type { ExecRequest, RuntimeHandle, RuntimeSink } from "../exec/runtime.ts";
import type { JsGuest } from "../guest/js-guest.ts";
import { JS_GUEST } from "./guest-code.ts";
import { GuestRuntime, type GuestRuntimeDeps } from "./guest-runtime.ts";
import type { JsRequest } from "./guest-wire.ts";
import { collectModules, JS_GUEST_MODULE, type JsModules } from "./js-modules.ts";

/** What the js runtime needs beyond the shell's deps: the vfs, to read imported modules. */
export interface JsRuntimeDeps extends GuestRuntimeDeps {
  vfs(): Vfs;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs ES modules. */
export class JsRuntime extends GuestRuntime<JsRuntimeDeps> {
  readonly name = "js";

  async start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle> {
    const egress = this.deps.egress();
    let graph: JsModules;
    try {
      graph = collectModules(this.deps.vfs(), request.cwd, request.source);
    } catch (err) {
      sink.output("stderr", `js: cannot load the module graph: ${describe(err)}\n`);
      const code = (err as { code?: unknown }).code;
      return {
        done: Promise.resolve({
          status: "failed",
          exitCode: 1,
          sync: { status: "none", rev: this.deps.vfs().rev(), conflicts: [] },
          error: { code: typeof code === "string" ? code : "EINVAL", message: describe(err) },
        }),
        kill: async () => undefined,
      };
    }
    const worker = this.deps.loader().load({
      ...this.workerCode(egress, JS_GUEST_MODULE, { [JS_GUEST_MODULE]: JS_GUEST, ...graph.modules }),
      limits: { cpuMs: this.timeoutMs(request) },
    });
    const guest = worker.getEntrypoint<JsGuest>("JsGuest");
    const jsRequest: JsRequest = {
      main: graph.main,
      input: request.input,
      cwd: request.cwd,
      env: request.env,
      stdin: request.stdin,
      execId: request.id,
      timeoutMs: this.timeoutMs(request),
      maxOutputBytes: request.outputCap,
    };
    return this.runSession(request, sink, (capabilities) => guest.run(jsRequest, capabilities));
  }
}
