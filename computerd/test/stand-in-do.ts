/**
 * Test support for computerd's sync: a stand-in Computer Durable Object in the test process
 * (a vfs on node:sqlite with the real SyncEndpoint, side "do") that accepts computerd's
 * dial-back WebSocket with the daemon's secret, serves DoSyncApi with capnweb and drives
 * DaemonApi like the real DO: push before a command (a failed push means it is not run),
 * exec with a sink, fence after the exit. Faults: drop the socket around the n-th batch of a
 * direction. `tree()` lists a vfs for convergence checks.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DatabaseSync } from "node:sqlite";
import { openVfs, type SqlLike, type Vfs } from "@computer/vfs";
import { nodeSqlite, sha256Hex } from "@computer/vfs/node";
import {
  type ApplyResult,
  type BlobData,
  type DaemonApi,
  type DaemonHealth,
  type DoSyncApi,
  type ExecExit,
  type FenceResult,
  forwardSyncPeer,
  readBlobGroups,
  type SyncBatch,
  SyncEndpoint,
  type SyncHello,
  SyncLink,
} from "@computer/vfs/sync";
import { newWebSocketRpcSession, type RpcStub, RpcTarget } from "capnweb";
import { WebSocketServer, type WebSocket as WsSocket } from "ws";

/** A fault: close the socket around the `after`-th applyBatch (1-based) of a direction. */
export interface DropFault {
  /** push: DO → computerd (closed while the call is in flight); upload: computerd → DO (closed after applying, before answering). */
  direction: "push" | "upload";
  after: number;
}

/** One dial-back session. */
interface Session {
  daemon: RpcStub<DaemonApi>;
  push: SyncLink;
  socket: WsSocket;
  closed: Promise<void>;
}

/** The outcome of `FakeDo.run`. */
export interface RunOutcome {
  exit?: ExecExit;
  output: string;
  /** Set when the fence answered (the sync is complete at `fence.rev`). */
  fence?: FenceResult;
  /** Why the command was not run, or why its sync is pending. */
  error?: string;
}

/** ExecSink on the DO side: collects the output, resolves `exited` with the exit. */
class Sink extends RpcTarget {
  text = "";
  #resolve: (exit: ExecExit) => void = () => {};
  readonly exited = new Promise<ExecExit>((resolve) => {
    this.#resolve = resolve;
  });

  output(_execId: string, _seq: number, _stream: string, data: string): void {
    this.text += data;
  }

  exit(exit: ExecExit): void {
    this.#resolve(exit);
  }
}

/** DoSyncApi over the fake DO's endpoint. */
class DoTarget extends RpcTarget implements DoSyncApi {
  readonly #do: FakeDo;
  constructor(fake: FakeDo) {
    super();
    this.#do = fake;
  }
  hello(hello: SyncHello): SyncHello {
    return this.#do.endpoint.hello(hello);
  }
  missingBlobs(hashes: string[]): string[] {
    return this.#do.endpoint.missingBlobs(hashes);
  }
  putBlobs(blobs: BlobData[]): void {
    this.#do.endpoint.putBlobs(blobs);
  }
  getBlobs(hashes: string[]): BlobData[] {
    const blobs = this.#do.endpoint.getBlobs(hashes);
    this.#do.fetched += blobs.length;
    return blobs;
  }
  releaseBlobs(hashes: string[], upTo: number): void {
    this.#do.endpoint.releaseBlobs(hashes, upTo);
  }
  applyBatch(batch: SyncBatch): ApplyResult {
    const result = this.#do.endpoint.applyBatch(batch);
    this.#do.uploads++;
    this.#do.dropIfDue("upload", this.#do.uploads);
    return result;
  }
  rev(): number {
    this.#do.revCalls++;
    return this.#do.vfs.rev();
  }
}

/** A stand-in Computer DO. */
export class FakeDo {
  readonly sql: SqlLike;
  readonly vfs: Vfs;
  readonly endpoint: SyncEndpoint;
  /** The secret a dial-back must present (the daemon's). */
  secret = "";
  /** applyBatch calls per direction since start. */
  pushes = 0;
  uploads = 0;
  /** `rev` calls computerd made since start. */
  revCalls = 0;
  /** Blobs computerd fetched (getBlobs) since start. */
  fetched = 0;
  sessions = 0;
  /** Blob uploads (POST .../blobs) stored since start. */
  blobPosts = 0;
  /** Blob uploads still to refuse (503) after reading them. */
  failBlobPosts = 0;
  /** False: no blob upload route (404), as an older Worker. */
  blobRoute = true;
  fault: DropFault | undefined;
  #server: Server | undefined;
  #session: Session | undefined;
  #waiters: ((session: Session) => void)[] = [];
  url = "";

  constructor() {
    this.sql = nodeSqlite(new DatabaseSync(":memory:"));
    this.vfs = openVfs(this.sql, { sha256: sha256Hex });
    this.endpoint = new SyncEndpoint(this.vfs, this.sql, { side: "do", sha256: sha256Hex });
  }

  /** Listens on a free port; `url` is the base computerd dials (POST /connect {base: url}). */
  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      if (req.url === "/computerd/blobs" && req.method === "POST" && this.blobRoute)
        void this.#receiveBlobs(req, res);
      else res.writeHead(404).end();
    });
    const wss = new WebSocketServer({ noServer: true });
    server.on("upgrade", (req, socket, head) => {
      if (req.headers.authorization !== `Bearer ${this.secret}`) {
        socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/computerd`;
  }

  /** computerd's blob upload, as the DO serves it (worker/src/container/blob-upload.ts). */
  async #receiveBlobs(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.secret}`) {
      res.writeHead(401).end();
      return;
    }
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    if (this.failBlobPosts > 0) {
      this.failBlobPosts--;
      res.writeHead(503).end("failing as told");
      return;
    }
    const body = new Uint8Array(Buffer.concat(parts));
    const stream = new ReadableStream<Uint8Array>({
      type: "bytes",
      start(controller) {
        if (body.length > 0) controller.enqueue(body);
        controller.close();
      },
    });
    let blobs = 0;
    try {
      for await (const group of readBlobGroups(stream.getReader({ mode: "byob" }))) {
        this.endpoint.putBlobs(group);
        blobs += group.length;
      }
    } catch (err) {
      res.writeHead(400).end(String(err));
      return;
    }
    this.blobPosts++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ blobs }));
  }

  #accept(ws: WsSocket): void {
    const closed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
    const daemon = newWebSocketRpcSession<DaemonApi>(ws as unknown as WebSocket, new DoTarget(this));
    const session: Session = {
      daemon,
      push: new SyncLink(
        this.endpoint,
        // The push drops the socket mid-call when a fault says so.
        forwardSyncPeer(daemon, async (method, call) => {
          if (method !== "applyBatch") return await call();
          const answer = call();
          this.pushes++;
          this.dropIfDue("push", this.pushes);
          return await answer;
        }),
      ),
      socket: ws,
      closed,
    };
    this.#session?.socket.close();
    this.#session = session;
    this.sessions++;
    void closed.then(() => {
      if (this.#session === session) this.#session = undefined;
    });
    for (const wake of this.#waiters.splice(0)) wake(session);
  }

  /** Closes the socket when `fault` names this direction and count. */
  dropIfDue(direction: DropFault["direction"], count: number): void {
    if (this.fault?.direction !== direction || this.fault.after !== count) return;
    this.fault = undefined;
    this.#session?.socket.terminate();
  }

  /** The current session, waiting for a dial-back if there is none. */
  session(timeoutMs = 10_000): Promise<Session> {
    if (this.#session) return Promise.resolve(this.#session);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("computerd did not dial back")), timeoutMs);
      this.#waiters.push((session) => {
        clearTimeout(timer);
        resolve(session);
      });
    });
  }

  /** True while a dial-back session is open. */
  get connected(): boolean {
    return this.#session !== undefined;
  }

  /** Drops the current session (as a broken network would). */
  drop(): void {
    this.#session?.socket.terminate();
  }

  /** Pushes every DO change to computerd; rejects when the link fails. */
  async push(): Promise<void> {
    const session = await this.session();
    await session.push.drain();
  }

  /** computerd's health (its running commands). */
  async health(): Promise<DaemonHealth> {
    const session = await this.session();
    return await session.daemon.health();
  }

  /** Asks computerd to upload everything (the DO's fence). */
  async fence(): Promise<FenceResult> {
    const session = await this.session();
    return await session.daemon.fence();
  }

  /** Like the DO's container runtime: push, exec, wait for the exit, fence. */
  async run(command: string, id = `ex_${crypto.randomUUID().replaceAll("-", "")}`): Promise<RunOutcome> {
    const session = await this.session();
    try {
      await session.push.drain();
    } catch (err) {
      return { output: "", error: `push failed: ${String(err)}` };
    }
    const sink = new Sink();
    try {
      await session.daemon.exec({ id, command }, sink);
    } catch (err) {
      return { output: "", error: `exec failed: ${String(err)}` };
    }
    const ended = await Promise.race([sink.exited, session.closed.then(() => undefined)]);
    if (!ended) return { output: sink.text, error: "lost the link" };
    try {
      return { exit: ended, output: sink.text, fence: await session.daemon.fence() };
    } catch (err) {
      return { exit: ended, output: sink.text, error: `fence failed: ${String(err)}` };
    }
  }

  close(): void {
    this.#session?.socket.terminate();
    this.#server?.closeAllConnections();
    this.#server?.close();
  }
}

/**
 * Every path below `root` of a vfs with its type and, for files, the sha-256 of the content
 * (symlinks: the target): what "the two sides converged" compares.
 */
export function tree(vfs: Vfs, root = "/"): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (dir: string): void => {
    for (const entry of vfs.list(dir)) {
      const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
      if (entry.type === "file") out.set(path, `file ${sha256Hex(vfs.readFile(path))}`);
      else if (entry.type === "symlink") out.set(path, `symlink ${vfs.readlink(path)}`);
      else out.set(path, entry.type);
      if (entry.type === "dir") visit(path);
    }
  };
  visit(root);
  return out;
}
