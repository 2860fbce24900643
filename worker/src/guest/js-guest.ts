/**
 * The js runtime's Dynamic Worker (a fresh one per exec): binds the exec's capabilities into
 * `runtime` (read by the generated `node:fs/promises`, `node:fs`, `computer:git` and
 * `computer:artifacts` modules), routes console.log/info/debug to stdout and warn/error to
 * stderr, imports the exec's module and calls its default export with `(input, ctx)`. The
 * return value becomes the result's `value` (as JSON: Dates become strings; a function, BigInt
 * or cycle fails the exec); a throw is exit code 1 with the stack on stderr.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type {
  GuestCapabilities,
  GuestOutcome,
  JsGuestEntrypoint,
  JsRequest,
} from "../guest-hosting/guest-wire.ts";
import { artifactsModule, gitModule } from "./computer-modules.ts";
import { formatLog } from "./console-format.ts";
import { FsClient, fsError } from "./fs-client.ts";
import { announceKillSwitch, KillSwitch } from "./kill-switch.ts";
import { createFsPromises, type FsPromises } from "./node-fs-promises.ts";
import { OutputChannel } from "./output-channel.ts";

/** What the generated modules read; set before the exec's module is imported. */
export const runtime: {
  fs?: FsPromises;
  git?: ReturnType<typeof gitModule>;
  artifacts?: ReturnType<typeof artifactsModule>;
  /** The error a synchronous `node:fs` function throws. */
  noSync: (name: string) => Error;
} = {
  noSync: (name) =>
    Object.assign(fsError("ENOSYS", name, "."), {
      message: `ENOSYS: fs.${name} is not available in the js runtime (use node:fs/promises)`,
    }),
};

/** What the default export receives as its second argument. */
interface ExecContext {
  env: Record<string, string>;
  cwd: string;
  stdin: string | undefined;
  execId: string;
  /** Aborted when the exec is killed or times out. */
  signal: AbortSignal;
}

function routeConsole(channel: OutputChannel): void {
  const to =
    (stream: "stdout" | "stderr") =>
    (...args: unknown[]): void =>
      channel.write(stream, `${formatLog(args)}\n`);
  const out = to("stdout");
  const err = to("stderr");
  Object.assign(console, { log: out, info: out, debug: out, warn: err, error: err, trace: err });
}

function setProcessEnv(env: Record<string, string>): void {
  // Touching the global process makes workerd load node:process (~2 ms of a fresh isolate).
  if (Object.keys(env).length === 0) return;
  const processEnv = (globalThis as { process?: { env?: Record<string, string> } }).process?.env;
  if (processEnv !== undefined) Object.assign(processEnv, env);
}

/** `value` as the JSON the result will hold, or undefined when it has no JSON form (BigInt, cycles, functions). */
function asJson(value: unknown): { value: unknown } | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function stackOf(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return `Uncaught ${formatLog([err])}`;
}

/** The js guest (loaded by the DO through the Worker Loader, entrypoint `JsGuest`). */
export class JsGuest extends WorkerEntrypoint implements JsGuestEntrypoint {
  async run(request: JsRequest, caps: GuestCapabilities): Promise<GuestOutcome> {
    const channel = new OutputChannel(caps.output, request.maxOutputBytes);
    runtime.fs = createFsPromises(new FsClient(caps.fs), request.cwd);
    runtime.git = gitModule(caps.services);
    runtime.artifacts = artifactsModule(caps.services);
    routeConsole(channel);
    setProcessEnv(request.env);
    const abort = new AbortController();
    let ended: "killed" | "timeout" | undefined;
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const end = (why: "killed" | "timeout") => {
      ended ??= why;
      abort.abort(new Error(why));
      stop();
    };
    announceKillSwitch(caps, new KillSwitch(() => end("killed")));
    const timer = setTimeout(() => end("timeout"), request.timeoutMs);
    const ctx: ExecContext = {
      env: request.env,
      cwd: request.cwd,
      stdin: request.stdin,
      execId: request.execId,
      signal: abort.signal,
    };
    let outcome: GuestOutcome;
    try {
      const run = async (): Promise<unknown> => {
        const module = (await import(request.main)) as { default?: unknown };
        if (typeof module.default !== "function") {
          throw new TypeError(
            "the module's default export is not a function: export default (input, ctx) => …",
          );
        }
        return await module.default(request.input, ctx);
      };
      const value = await Promise.race([run(), stopped.then(() => undefined)]);
      const json = value === undefined ? undefined : asJson(value);
      if (ended !== undefined) outcome = { status: ended, exitCode: null, truncated: false };
      else if (value !== undefined && json === undefined) {
        channel.write(
          "stderr",
          "the default export's return value cannot be sent as JSON (a function, BigInt or cycle)\n",
        );
        outcome = { status: "failed", exitCode: 1, truncated: false };
      } else {
        outcome = { status: "completed", exitCode: 0, truncated: false };
        if (json !== undefined) outcome.value = json.value;
      }
    } catch (err) {
      channel.write("stderr", `${stackOf(err)}\n`);
      outcome =
        ended === undefined
          ? { status: "failed", exitCode: 1, truncated: false }
          : { status: ended, exitCode: null, truncated: false };
    } finally {
      clearTimeout(timer);
    }
    await channel.flush().catch(() => undefined);
    outcome.truncated = channel.truncated;
    return outcome;
  }
}
