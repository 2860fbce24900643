/**
 * A stand-in computerd for the sync-link e2e suite: a real mirror (vfs on node:sqlite with
 * the real sync engine) behind the real wire: HTTP `/health` and `/connect`, the dial-back
 * WebSocket with the secret, capnweb serving DaemonApi. Instead of a shell over FUSE its
 * "commands" act on the mirror directly (`write PATH TEXT`, `many DIR N`, `cat PATH`,
 * `echo TEXT`, `sleep MS`), so the Worker side is tested against the true sync protocol
 * without depending on the FUSE mount. A small fake `computerd host` hands it out.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DatabaseSync } from "node:sqlite";
import { openVfs, type Vfs } from "@computer/vfs";
import { nodeSqlite, sha256Hex } from "@computer/vfs/node";
import {
  type ApplyResult,
  type BlobData,
  type ComputerLimits,
  type DaemonApi,
  type DaemonHealth,
  type DoSyncApi,
  type ExecSink,
  type ExecSpec,
  type FenceResult,
  forwardSyncPeer,
  type SyncBatch,
  SyncEndpoint,
  type SyncHello,
  SyncLink,
} from "@computer/vfs/sync";
import { WithoutTerminals } from "@computer/worker/without-terminals";
import { newWebSocketRpcSession, type RpcStub } from "capnweb";

/** The mirror daemon: state and the link. */
export class MirrorDaemon {
  readonly secret = `mirror-${crypto.randomUUID()}`;
  readonly vfs: Vfs;
  readonly endpoint: SyncEndpoint;
  /** Fences to fail (the DO then leaves the sync pending and retries from its alarm). */
  failFences = 0;
  connects = 0;
  remote: RpcStub<DoSyncApi> | undefined;
  upload: SyncLink | undefined;
  server: Server | undefined;
  url = "";

  constructor() {
    const sql = nodeSqlite(new DatabaseSync(":memory:"));
    this.vfs = openVfs(sql, { sha256: sha256Hex });
    this.endpoint = new SyncEndpoint(this.vfs, sql, { side: "container", sha256: sha256Hex });
  }

  /** Dials the DO (like computerd's POST /connect). */
  async dial(base: string): Promise<void> {
    const url = base.replace(/^http/, "ws");
    type HeaderWebSocket = new (url: string, init: { headers: Record<string, string> }) => WebSocket;
    const socket = new (WebSocket as unknown as HeaderWebSocket)(url, {
      headers: { authorization: `Bearer ${this.secret}` },
    });
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`cannot dial ${url}`)), { once: true });
    });
    this.remote?.[Symbol.dispose]();
    this.remote = newWebSocketRpcSession<DoSyncApi>(socket, new MirrorTarget(this));
    this.upload = new SyncLink(this.endpoint, forwardSyncPeer(this.remote));
    this.connects++;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url === "/health") return void res.writeHead(200).end('{"ok":true}');
    if (req.headers.authorization !== `Bearer ${this.secret}`) return void res.writeHead(401).end();
    if (req.url === "/connect" && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += String(chunk);
      await this.dial((JSON.parse(body) as { base: string }).base);
      return void res.writeHead(200).end('{"connected":true}');
    }
    res.writeHead(404).end();
  }

  /** Starts the HTTP side on a free port. */
  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => res.writeHead(502).end(String(err)));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): void {
    this.remote?.[Symbol.dispose]();
    this.server?.closeAllConnections();
    this.server?.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** DaemonApi over the mirror. */
class MirrorTarget extends WithoutTerminals implements DaemonApi {
  readonly #d: MirrorDaemon;
  constructor(daemon: MirrorDaemon) {
    super();
    this.#d = daemon;
  }
  hello(hello: SyncHello): SyncHello {
    return this.#d.endpoint.hello(hello);
  }
  missingBlobs(hashes: string[]): string[] {
    return this.#d.endpoint.missingBlobs(hashes);
  }
  putBlobs(blobs: BlobData[]): void {
    this.#d.endpoint.putBlobs(blobs);
  }
  getBlobs(hashes: string[]): BlobData[] {
    return this.#d.endpoint.getBlobs(hashes);
  }
  releaseBlobs(hashes: string[], upTo: number): void {
    this.#d.endpoint.releaseBlobs(hashes, upTo);
  }
  applyBatch(batch: SyncBatch): ApplyResult {
    return this.#d.endpoint.applyBatch(batch);
  }
  setLimits(limits: ComputerLimits): void {
    this.#d.vfs.setQuota(limits.quotaBytes);
  }
  async fence(): Promise<FenceResult> {
    const d = this.#d;
    if (d.failFences > 0) {
      d.failFences--;
      throw new Error("fence failed (injected)");
    }
    if (d.upload === undefined || d.remote === undefined) throw new Error("no link");
    const report = await d.upload.drain();
    return { rev: report.rev ?? (await d.remote.rev()), conflicts: report.conflicts };
  }
  async exec(spec: ExecSpec, sink: RpcStub<ExecSink>): Promise<{ pid: number }> {
    const kept = sink.dup();
    const { vfs } = this.#d;
    void (async () => {
      let seq = 0;
      let status: "completed" | "failed" = "completed";
      try {
        for (const line of spec.command.split("\n")) {
          const [op, path = "", ...rest] = line.split(" ");
          if (op === "echo") await kept.output(spec.id, seq++, "stdout", `${[path, ...rest].join(" ")}\n`);
          else if (op === "cat")
            await kept.output(spec.id, seq++, "stdout", new TextDecoder().decode(vfs.readFile(path)));
          else if (op === "write") vfs.writeFile(path, rest.join(" "), { parents: true });
          else if (op === "sleep") await sleep(Number(path));
          else if (op === "many") {
            vfs.mkdir(path, { recursive: true });
            for (let i = 0; i < Number(rest[0]); i++) vfs.writeFile(`${path}/f${i}`, `${i}\n`);
          }
        }
      } catch (err) {
        status = "failed";
        await kept.output(spec.id, seq++, "stderr", `${String(err)}\n`);
      }
      await kept.exit({ execId: spec.id, status, exitCode: status === "completed" ? 0 : 1, durationMs: 1 });
      kept[Symbol.dispose]();
    })();
    return { pid: 1 };
  }
  kill(): boolean {
    return false;
  }
  attach(): boolean {
    return false;
  }
  health(): DaemonHealth {
    return { ok: true, mirror: this.#d.endpoint.id, running: [] };
  }
}

/** A fake `computerd host` that hands out one MirrorDaemon per computer. */
export class MirrorHost {
  readonly token = `host-${crypto.randomUUID()}`;
  readonly daemons = new Map<string, MirrorDaemon>();
  url = "";
  #server: Server | undefined;

  async listen(): Promise<void> {
    this.#server = createServer((req, res) => {
      void (async () => {
        if (req.headers.authorization !== `Bearer ${this.token}`) return void res.writeHead(401).end();
        const match = /^\/computers\/([a-z0-9-]+)(\/ensure)?$/.exec(req.url ?? "");
        const id = match?.[1];
        if (id === undefined) return void res.writeHead(404).end();
        if (req.method === "POST" && match?.[2] === "/ensure") {
          let daemon = this.daemons.get(id);
          if (daemon === undefined) {
            daemon = new MirrorDaemon();
            await daemon.listen();
            this.daemons.set(id, daemon);
          }
          const body = JSON.stringify({ url: daemon.url, secret: daemon.secret, specHash: "any" });
          return void res.writeHead(200, { "Content-Type": "application/json" }).end(body);
        }
        if (req.method === "GET") {
          const running = this.daemons.has(id);
          return void res.writeHead(200).end(JSON.stringify({ running, healthy: running }));
        }
        if (req.method === "DELETE") {
          this.daemons.get(id)?.close();
          this.daemons.delete(id);
          return void res.writeHead(204).end();
        }
        res.writeHead(405).end();
      })().catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): void {
    for (const daemon of this.daemons.values()) daemon.close();
    this.#server?.closeAllConnections();
    this.#server?.close();
  }
}
