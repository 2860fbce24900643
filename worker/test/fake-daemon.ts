/**
 * A fake computerd on the real dial-back WebSocket: the test dials `/_computerd` through the
 * Worker like computerd would and serves DaemonApi with capnweb. It keeps no filesystem: it
 * records what the DO pushes, runs "commands" that print and exit, and on `fence()` uploads
 * a scripted batch to the DO (copies of pushed files, by hash, so no blob has to travel).
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
  SyncChange,
  SyncHello,
} from "@computer/vfs/sync";
import { newWebSocketRpcSession, type RpcStub } from "capnweb";
import { WithoutTerminals } from "./without-terminals.ts";

/** The fake daemon's behaviour and what it saw. */
export class FakeDaemon extends WithoutTerminals implements DaemonApi {
  readonly #state: FakeDaemonState;

  constructor(state: FakeDaemonState) {
    super();
    this.#state = state;
  }

  hello(hello: SyncHello): SyncHello {
    this.#state.doId = hello.id;
    return {
      id: this.#state.id,
      side: "container",
      received: { peer: hello.id, cursor: this.#state.cursor, lastBatch: this.#state.lastBatch },
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
  setLimits(limits: ComputerLimits): void {
    this.#state.limits.push(limits);
  }
  applyBatch(batch: SyncBatch): ApplyResult {
    for (const change of batch.changes) this.#state.pushed.set(change.path, change);
    this.#state.cursor = batch.cursor;
    this.#state.lastBatch = batch.id;
    return { status: "applied", rev: 0, cursor: batch.cursor, conflicts: [] };
  }

  async fence(): Promise<FenceResult> {
    const state = this.#state;
    if (state.failFence > 0) {
      state.failFence--;
      throw new Error("fence failed (injected)");
    }
    const remote = state.remote;
    if (remote === undefined) throw new Error("no link");
    let rev = await remote.rev();
    if (state.uploads.length > 0) {
      const reply = await remote.hello({
        id: state.id,
        side: "container",
        received: { peer: state.doId ?? null, cursor: state.cursor, lastBatch: state.lastBatch },
      });
      const changes = state.uploads.splice(0);
      const result = await remote.applyBatch({
        id: crypto.randomUUID(),
        from: state.id,
        baseCursor: reply.received.cursor,
        cursor: String(++state.uploaded),
        changes,
      });
      if (result.status !== "applied") throw new Error(`upload ${result.status}`);
      rev = result.rev;
    }
    return { rev, conflicts: [] };
  }

  async exec(spec: ExecSpec, sink: RpcStub<ExecSink>): Promise<{ pid: number }> {
    const state = this.#state;
    state.execs.push(spec);
    const kept = sink.dup();
    void (async () => {
      const lines = spec.command.split("\n");
      let seq = 0;
      for (const line of lines) {
        const [op, ...rest] = line.split(" ");
        const arg = rest.join(" ");
        if (op === "out") await kept.output(spec.id, seq++, "stdout", `${arg}\n`);
        else if (op === "sleep") await new Promise((r) => setTimeout(r, Number(arg)));
        else if (op === "upload") state.uploads.push(...state.copyPushed(arg));
        else if (op === "hang") await new Promise<void>((r) => state.killers.set(spec.id, r));
      }
      const killed = state.killed.has(spec.id);
      await kept.exit({
        execId: spec.id,
        status: killed ? "killed" : "completed",
        exitCode: killed ? 137 : 0,
        durationMs: 1,
      });
      kept[Symbol.dispose]();
    })();
    return { pid: 4242 };
  }

  kill(execId: string): boolean {
    const state = this.#state;
    const wake = state.killers.get(execId);
    if (wake === undefined) return false;
    state.killed.add(execId);
    wake();
    return true;
  }

  attach(_execId: string, _sink: RpcStub<ExecSink>, _afterSeq?: number): boolean {
    return false;
  }

  health(): DaemonHealth {
    return { ok: true, mirror: this.#state.id, running: [] };
  }
}

/** The fake daemon's state, kept outside the RpcTarget so the test can read it. */
export class FakeDaemonState {
  readonly id = `mirror-${crypto.randomUUID()}`;
  doId: string | undefined;
  cursor = "0";
  lastBatch: string | null = null;
  uploaded = 0;
  failFence = 0;
  /** Every `setLimits` the DO sent, in order. */
  readonly limits: ComputerLimits[] = [];
  readonly pushed = new Map<string, SyncChange>();
  readonly uploads: SyncChange[] = [];
  readonly execs: ExecSpec[] = [];
  readonly killers = new Map<string, () => void>();
  readonly killed = new Set<string>();
  remote: RpcStub<DoSyncApi> | undefined;
  socket: WebSocket | undefined;

  /** "FROM TO": a change creating TO with the pushed content of FROM. */
  copyPushed(arg: string): SyncChange[] {
    const [from, to] = arg.split(" ");
    const source = from === undefined ? undefined : this.pushed.get(from);
    if (source === undefined || to === undefined) throw new Error(`nothing pushed at ${from}`);
    return [{ ...source, path: to, base: "" }];
  }
}

/** Dials the DO's link endpoint like computerd; resolves with the HTTP status (101 on success). */
export async function dialBack(url: string, secret: string, state: FakeDaemonState): Promise<number> {
  const res = await SELF.fetch(url, { headers: { Upgrade: "websocket", Authorization: `Bearer ${secret}` } });
  const socket = res.webSocket;
  if (res.status !== 101 || socket === null) {
    await res.body?.cancel();
    return res.status;
  }
  socket.accept();
  state.socket = socket;
  state.remote = newWebSocketRpcSession<DoSyncApi>(socket, new FakeDaemon(state));
  return 101;
}
