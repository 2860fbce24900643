/**
 * The shell runtime's Dynamic Worker: runs one bash script in just-bash per call. The
 * filesystem (shell-fs.ts) is the computer's files at /workspace (over the DO's RPC
 * capability, see workspace-fs.ts), an in-memory scratch tree everywhere else, and the output
 * device the stream plugin writes to. Ends in a GuestOutcome: completed/failed by
 * exit code, `timeout` past the wall-clock limit (timer or just-bash's deadline), `killed` when
 * the DO pulled the kill switch.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { LazyCommand, SecureFetch } from "just-bash";
import { Bash, InMemoryFs } from "just-bash/browser";
import type {
  GuestCapabilities,
  GuestOutcome,
  ShellGuestEntrypoint,
  ShellRequest,
} from "../guest-hosting/guest-wire.ts";
import { FsClient } from "./fs-client.ts";
import { announceKillSwitch, KillSwitch } from "./kill-switch.ts";
import { OutputChannel } from "./output-channel.ts";
import { OUTPUT_DEVICE, OutputDevice } from "./output-device.ts";
import { serviceCommands } from "./shell-commands.ts";
import { ShellFs } from "./shell-fs.ts";
import { StreamPlugin } from "./stream-plugin.ts";
import { WorkspaceFs } from "./workspace-fs.ts";

/** Where the computer's files are mounted. */
const WORKSPACE = "/workspace";
/** Largest response body curl accepts. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Bytes a script may hold as output in memory before just-bash stops it. */
const MAX_BUFFERED_OUTPUT = 64 * 1024 * 1024;

/**
 * `tar` (tar-command.ts), evaluated at its first run: modern-tar builds an Error at its module's
 * top level, and an Error made while the bundle's top level runs has that top level on its
 * stack, whose source positions V8 collects by parsing the whole bundle again (~50 ms of CPU in
 * every new shell isolate, docs/BENCH.md "Shell cold start"). The bundler turns the dynamic
 * import into a lazily run init of the module.
 */
const TAR: LazyCommand = {
  name: "tar",
  load: async () => (await import("./tar-command.ts")).tarCommand(),
};

/** curl's fetch: plain `fetch`, so the Dynamic Worker's globalOutbound (egress policy) decides. */
const guestFetch: SecureFetch = async (url, options = {}) => {
  const response = await fetch(url, {
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
    redirect: options.followRedirects === false ? "manual" : "follow",
    signal: options.signal,
  });
  const body = new Uint8Array(await response.arrayBuffer());
  if (body.byteLength > MAX_RESPONSE_BYTES)
    throw new Error(`response larger than ${MAX_RESPONSE_BYTES} bytes`);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return {
    status: response.status,
    statusText: response.statusText,
    headers,
    body,
    url: response.url || url,
  };
};

/**
 * The spare's warm-up (`warm`): what every run needs compiled (just-bash's parser and
 * interpreter, on `true`). A gzip round trip in it (node:zlib loaded ahead for a computer's
 * first gzip) was measured and not kept: +30 ms of CPU in every warm-up (docs/BENCH.md).
 */
const WARM_SCRIPT = "true";
/**
 * The warm-up runs under a run's output cap: just-bash's default (256 MiB) is past the largest
 * output workerd's zlib takes for a buffer (128 MiB), so gzip failed in the scratch tree
 * ("options.maxOutputLength is out of range").
 */
const WARM_LIMITS = { maxOutputSize: MAX_BUFFERED_OUTPUT };

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Scripts this isolate has run, reported with each outcome: a computer's first exec must say 1
 * (its isolate, a spare or its own, ran nothing of another computer before).
 */
let isolateRuns = 0;

/** The shell guest (loaded by the DO through the Worker Loader, entrypoint `ShellGuest`). */
export class ShellGuest extends WorkerEntrypoint implements ShellGuestEntrypoint {
  /**
   * A spare's warm-up (shell-spares.ts): the call makes the loader compile and evaluate the
   * bundle, and `true` in a scratch tree of its own compiles and initialises what every run
   * needs (just-bash's parser and interpreter are compiled on first use). It carries nothing of
   * any computer and is not counted in `isolateRuns`.
   */
  async warm(): Promise<void> {
    const fs = new ShellFs([{ mountPoint: WORKSPACE, filesystem: new InMemoryFs() }]);
    const bash = new Bash({ fs, cwd: WORKSPACE, env: { HOME: "/home/user" }, executionLimits: WARM_LIMITS });
    bash.registerTransformPlugin(new StreamPlugin());
    const result = await bash.exec(WARM_SCRIPT, { cwd: WORKSPACE, rawScript: true });
    // A warm-up that fails is no spare (shell-spares.ts drops it): never a silent half warm-up.
    if (result.exitCode !== 0) throw new Error(`warm-up failed (${result.exitCode}): ${result.stderr}`);
  }

  async run(request: ShellRequest, caps: GuestCapabilities): Promise<GuestOutcome> {
    isolateRuns++;
    const channel = new OutputChannel(caps.output, request.limits.maxOutputBytes);
    const client = new FsClient(caps.fs);
    const fs = new ShellFs([
      { mountPoint: WORKSPACE, filesystem: new WorkspaceFs(client, WORKSPACE) },
      { mountPoint: OUTPUT_DEVICE, filesystem: new OutputDevice(channel) },
    ]);
    const abort = new AbortController();
    let ended: "killed" | "timeout" | undefined;
    announceKillSwitch(
      caps,
      new KillSwitch(() => {
        ended ??= "killed";
        abort.abort(new Error("killed"));
      }),
    );
    const bash = new Bash({
      fs,
      cwd: request.cwd,
      env: { HOME: "/home/user", ...request.env },
      customCommands: [...serviceCommands(caps.services), TAR],
      ...(request.network ? { fetch: guestFetch } : {}),
      executionLimits: {
        maxExecutionTimeMs: request.limits.timeoutMs,
        maxLoopIterations: request.limits.maxLoopIterations,
        maxCommandCount: request.limits.maxCommandCount,
        maxOutputSize: MAX_BUFFERED_OUTPUT,
      },
    });
    bash.registerTransformPlugin(new StreamPlugin());
    if (
      request.cwd !== WORKSPACE &&
      !(await fs.stat(request.cwd).then(
        (s) => s.isDirectory,
        () => false,
      ))
    ) {
      // As `sh -c 'cd DIR && ...'` in the container: the script does not run.
      channel.write("stderr", `bash: cd: ${request.cwd}: No such file or directory\n`);
      await channel.flush().catch(() => undefined);
      return { status: "failed", exitCode: 1, truncated: false, isolateRuns };
    }
    const started = Date.now();
    const timer = setTimeout(() => {
      ended ??= "timeout";
      abort.abort(new Error("timeout"));
    }, request.limits.timeoutMs);
    let exitCode: number;
    let error: GuestOutcome["error"];
    try {
      const result = await bash.exec(request.script, {
        cwd: request.cwd,
        stdin: request.stdin,
        signal: abort.signal,
        rawScript: true,
      });
      channel.write("stdout", result.stdout);
      channel.write("stderr", result.stderr);
      exitCode = result.exitCode;
    } catch (err) {
      channel.write("stderr", `bash: ${describe(err)}\n`);
      exitCode = 2;
      error = { code: "EIO", message: describe(err) };
    } finally {
      clearTimeout(timer);
    }
    // Deferred writes that failed after their caller moved on: never silent.
    for (const failure of await client.drain().catch((err: unknown) => [err as Error])) {
      channel.write("stderr", `bash: write error: ${describe(failure)}\n`);
      if (exitCode === 0) exitCode = 1;
    }
    if (ended === undefined && Date.now() - started >= request.limits.timeoutMs) ended = "timeout";
    await channel.flush().catch(() => undefined);
    const base = { truncated: channel.truncated, isolateRuns, ...(error === undefined ? {} : { error }) };
    if (ended !== undefined) return { status: ended, exitCode: null, ...base };
    return { status: exitCode === 0 ? "completed" : "failed", exitCode, ...base };
  }
}
