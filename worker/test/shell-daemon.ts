/**
 * A fake computerd whose commands are real shell: served on the real dial-back link (like
 * fake-daemon.ts), it runs each ExecSpec in just-bash over an in-memory tree (/workspace and
 * the exec's cwd exist, nothing is synced), streaming each statement's output through the
 * sink as it happens, and enforcing the spec's timeout and kill. The exec contract suite uses
 * it to run the same shell cases against the container runtime inside workerd.
 */
import { SELF } from "cloudflare:test";
import type {
  ApplyResult,
  BlobData,
  ComputerLimits,
  DaemonApi,
  DaemonHealth,
  DoSyncApi,
  ExecSink,
  ExecSpec,
  FenceResult,
  SyncBatch,
  SyncHello,
} from "@computer/vfs/sync";
import { newWebSocketRpcSession, type RpcStub } from "capnweb";
import { Bash, InMemoryFs, MountableFs } from "just-bash/browser";
import { OutputChannel } from "../src/guest/output-channel.ts";
import { OUTPUT_DEVICE, OutputDevice } from "../src/guest/output-device.ts";
import { StreamPlugin } from "../src/guest/stream-plugin.ts";
import type { GuestOutputApi, OutputPiece } from "../src/guest-hosting/guest-wire.ts";
import { WithoutTerminals } from "./without-terminals.ts";

/** What the daemon saw. */
export class ShellDaemonState {
  readonly id = `mirror-${crypto.randomUUID()}`;
  readonly execs: ExecSpec[] = [];
  readonly running = new Map<string, AbortController>();
  remote: RpcStub<DoSyncApi> | undefined;
}

class SinkOutput implements GuestOutputApi {
  readonly #sink: RpcStub<ExecSink>;
  readonly #execId: string;
  #seq = 0;

  constructor(sink: RpcStub<ExecSink>, execId: string) {
    this.#sink = sink;
    this.#execId = execId;
  }

  async write(pieces: OutputPiece[]): Promise<void> {
    for (const piece of pieces) await this.#sink.output(this.#execId, this.#seq++, piece.stream, piece.data);
  }
}

/** DaemonApi with just-bash as the shell. */
class ShellDaemon extends WithoutTerminals implements DaemonApi {
  readonly #state: ShellDaemonState;

  constructor(state: ShellDaemonState) {
    super();
    this.#state = state;
  }

  hello(hello: SyncHello): SyncHello {
    return {
      id: this.#state.id,
      side: "container",
      received: { peer: hello.id, cursor: "0", lastBatch: null },
    };
  }
  missingBlobs(_hashes: string[]): string[] {
    return [];
  }
  putBlobs(_blobs: BlobData[]): void {}
  getBlobs(_hashes: string[]): BlobData[] {
    return [];
  }
  releaseBlobs(_hashes: string[], _upTo: number): void {}
  applyBatch(batch: SyncBatch): ApplyResult {
    return { status: "applied", rev: 0, cursor: batch.cursor, conflicts: [] };
  }
  setLimits(_limits: ComputerLimits): void {}
  async fence(): Promise<FenceResult> {
    const remote = this.#state.remote;
    if (remote === undefined) throw new Error("no link");
    return { rev: await remote.rev(), conflicts: [] };
  }

  async exec(spec: ExecSpec, sink: RpcStub<ExecSink>): Promise<{ pid: number }> {
    this.#state.execs.push(spec);
    const kept = sink.dup();
    const abort = new AbortController();
    this.#state.running.set(spec.id, abort);
    void this.#run(spec, kept, abort);
    return { pid: 4242 };
  }

  async #run(spec: ExecSpec, sink: RpcStub<ExecSink>, abort: AbortController): Promise<void> {
    const started = Date.now();
    const channel = new OutputChannel(new SinkOutput(sink, spec.id), Number.MAX_SAFE_INTEGER);
    // As computerd does: a relative cwd is resolved against the workspace.
    const relative = spec.cwd ?? ".";
    const cwd = relative.startsWith("/")
      ? relative
      : relative === "."
        ? "/workspace"
        : `/workspace/${relative}`;
    const base = new InMemoryFs();
    base.mkdirSync(cwd, { recursive: true });
    base.mkdirSync("/tmp", { recursive: true });
    const fs = new MountableFs({
      base,
      mounts: [{ mountPoint: OUTPUT_DEVICE, filesystem: new OutputDevice(channel) }],
    });
    const bash = new Bash({
      fs,
      cwd,
      env: spec.env ?? {},
      executionLimits: { maxLoopIterations: 1_000_000 },
    });
    bash.registerTransformPlugin(new StreamPlugin());
    let why: "timeout" | "killed" | undefined;
    const timer = setTimeout(() => {
      why ??= "timeout";
      abort.abort();
    }, spec.timeoutMs ?? 600_000);
    abort.signal.addEventListener("abort", () => {
      why ??= "killed";
    });
    let exitCode: number | null = null;
    try {
      const result = await bash.exec(spec.command, {
        cwd,
        stdin: spec.stdin,
        signal: abort.signal,
        rawScript: true,
      });
      channel.write("stdout", result.stdout);
      channel.write("stderr", result.stderr);
      exitCode = result.exitCode;
    } catch (err) {
      channel.write("stderr", `sh: ${err instanceof Error ? err.message : String(err)}\n`);
      exitCode = 2;
    } finally {
      clearTimeout(timer);
      this.#state.running.delete(spec.id);
    }
    await channel.flush();
    const status = why ?? (exitCode === 0 ? "completed" : "failed");
    await sink.exit({
      execId: spec.id,
      status,
      exitCode: why === undefined ? exitCode : why === "killed" ? 137 : 124,
      durationMs: Date.now() - started,
    });
    sink[Symbol.dispose]();
  }

  kill(execId: string): boolean {
    const abort = this.#state.running.get(execId);
    if (abort === undefined) return false;
    abort.abort();
    return true;
  }

  attach(_execId: string, _sink: RpcStub<ExecSink>, _afterSeq?: number): boolean {
    return false;
  }

  health(): DaemonHealth {
    return { ok: true, mirror: this.#state.id, running: [...this.#state.running.keys()] };
  }
}

/** Dials the DO's link endpoint as the shell daemon; resolves with the HTTP status (101 on success). */
export async function dialShellDaemon(url: string, secret: string, state: ShellDaemonState): Promise<number> {
  const res = await SELF.fetch(url, { headers: { Upgrade: "websocket", Authorization: `Bearer ${secret}` } });
  const socket = res.webSocket;
  if (res.status !== 101 || socket === null) {
    await res.body?.cancel();
    return res.status;
  }
  socket.accept();
  state.remote = newWebSocketRpcSession<DoSyncApi>(socket, new ShellDaemon(state));
  return 101;
}
