/**
 * A scripted runtime for the exec API tests, run inside the Computer DO. `source` is one
 * instruction per line: `out TEXT` / `err TEXT` (a line of output), `big N` (N bytes of "x"
 * to stdout), `sleep MS`, `hang` (wait until killed), `exit CODE`, `value JSON` (js-like
 * result), `unavailable` (start throws 503). Installed with `installFakeRuntime`.
 */
import { env, runInDurableObject } from "cloudflare:test";
import type {
  ExecRequest,
  Runtime,
  RuntimeHandle,
  RuntimeOutcome,
  RuntimeSink,
} from "../src/exec/runtime.ts";
import { ApiError } from "../src/http/errors.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every request any fake runtime of this test file was started with. */
export const started: ExecRequest[] = [];

/** The scripted runtime. */
export class FakeRuntime implements Runtime {
  readonly name = "container";
  readonly defaultTimeoutMs = 60_000;
  readonly maxTimeoutMs = 120_000;
  readonly timeoutGraceMs = 0;

  async start(request: ExecRequest, sink: RuntimeSink): Promise<RuntimeHandle> {
    if (request.source.trim() === "unavailable") {
      throw new ApiError("EUNAVAILABLE", "fake runtime unavailable", { headers: { "Retry-After": "3" } });
    }
    started.push(request);
    let killed = false;
    let wake: () => void = () => undefined;
    const killedSignal = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const run = async (): Promise<RuntimeOutcome> => {
      let value: unknown;
      for (const line of request.source.split("\n")) {
        if (killed) break;
        const [op, ...rest] = line.split(" ");
        const arg = rest.join(" ");
        if (op === "out") sink.output("stdout", `${arg}\n`);
        else if (op === "err") sink.output("stderr", `${arg}\n`);
        else if (op === "big") sink.output("stdout", "x".repeat(Number(arg)));
        else if (op === "sleep") await Promise.race([sleep(Number(arg)), killedSignal]);
        else if (op === "hang") await killedSignal;
        else if (op === "value") value = JSON.parse(arg);
        else if (op === "exit") {
          const code = Number(arg);
          return {
            status: code === 0 ? "completed" : "failed",
            exitCode: code,
            value,
            sync: { status: "none", conflicts: [] },
          };
        }
      }
      if (killed) return { status: "killed", exitCode: null, sync: { status: "none", conflicts: [] } };
      return { status: "completed", exitCode: 0, value, sync: { status: "none", conflicts: [] } };
    };
    return {
      done: run(),
      kill: async () => {
        killed = true;
        wake();
      },
    };
  }
}

/** Installs the fake runtime as the `container` runtime of computer `id`. */
export async function installFakeRuntime(id: string): Promise<void> {
  await runInDurableObject(env.COMPUTER.getByName(id), (instance) => {
    instance.execHostForTests().useRuntime("container", new FakeRuntime());
  });
}
