/**
 * The dial-back link against a local capnweb WebSocket server standing in for the Durable
 * Object: the secret is presented, DaemonApi is served (exec with a sink, attach, kill,
 * health), the DO's API is callable from computerd, and a new connect replaces the old link.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type BlobData, type DaemonApi, type ExecExit, WIRE_HEADER, WireTransport } from "@computer/vfs/sync";
import { newWebSocketRpcSession, RpcSession, type RpcStub, RpcTarget } from "capnweb";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { WebSocketServer, type WebSocket as WsSocket } from "ws";
import { type TestDaemon, testDaemon } from "../../test/server-harness.ts";
import type { Link } from "./dial-back-link.ts";
import { linkUrl } from "./dial-back-link.ts";
import { unreadableOnTheWay } from "./frame-mask.ts";

/** The DO's side of the wire, as far as these tests need it. */
class FakeDo extends RpcTarget {
  readonly blobs = new Map<string, Uint8Array>();

  rev(): number {
    return 42;
  }

  putBlobs(blobs: BlobData[]): void {
    for (const blob of blobs) this.blobs.set(blob.hash, blob.data.slice());
  }

  getBlobs(hashes: string[]): BlobData[] {
    return hashes.flatMap((hash) => {
      const data = this.blobs.get(hash);
      return data ? [{ hash, data }] : [];
    });
  }
}

/** An ExecSink on the DO side, collecting what computerd sends. */
class Sink extends RpcTarget {
  readonly received: { seq: number; stream: string; data: string }[] = [];
  #resolve: (exit: ExecExit) => void = () => {};
  readonly done = new Promise<ExecExit>((resolve) => {
    this.#resolve = resolve;
  });

  output(_execId: string, seq: number, stream: string, data: string): void {
    this.received.push({ seq, stream, data });
  }

  exit(exit: ExecExit): void {
    this.#resolve(exit);
  }
}

interface Connection {
  socket: WsSocket;
  authorization: string | undefined;
  /** What computerd's dial-back asked for in X-Computer-Wire. */
  wire: string | undefined;
  daemon: RpcStub<DaemonApi>;
  target: FakeDo;
  closed: Promise<void>;
  /** Messages computerd sent, by kind. */
  received: { binary: number; text: number };
  /** The masking key of each frame computerd sent, as read off the socket. */
  maskKeys: number[][];
  /** Each frame's opcode and FIN bit, in the same order (a fragment continues with opcode 0). */
  frames: { opcode: number; fin: boolean; length: number }[];
  /** With `callAtOnce`: the DO's health() call made as it accepted, before anything came. */
  early?: Promise<unknown>;
}

/**
 * Collects the masking key, opcode and FIN bit of every client frame in the raw bytes of
 * `socket` (RFC 6455 5.2: FIN and opcode byte, mask bit and length, extended length, key, payload).
 */
function collectFrames(
  socket: NodeJS.ReadableStream,
  keys: number[][],
  frames: { opcode: number; fin: boolean; length: number }[],
): void {
  let pending = Buffer.alloc(0);
  socket.on("data", (data: Buffer) => {
    pending = Buffer.concat([pending, data]);
    for (;;) {
      if (pending.length < 2) return;
      const masked = ((pending[1] ?? 0) & 0x80) !== 0;
      let length = (pending[1] ?? 0) & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (pending.length < 4) return;
        length = pending.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (pending.length < 10) return;
        length = Number(pending.readBigUInt64BE(2));
        offset = 10;
      }
      const keyLength = masked ? 4 : 0;
      if (pending.length < offset + keyLength + length) return;
      keys.push(masked ? [...pending.subarray(offset, offset + 4)] : []);
      frames.push({ opcode: (pending[0] ?? 0) & 0x0f, fin: ((pending[0] ?? 0) & 0x80) !== 0, length });
      pending = pending.subarray(offset + keyLength + length);
    }
  });
}

let server: Server;
let base = "";
let expectedSecret = "";
/** The stand-in DO takes binary frames as the real one does (else: capnweb's text transport, as an older DO). */
let framesDo = false;
/** The stand-in DO calls the daemon as soon as it accepted (its frames follow its 101 at once). */
let callAtOnce = false;
const connections: Connection[] = [];
let daemon: TestDaemon;
const links: Link[] = [];

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    if (req.headers.authorization !== `Bearer ${expectedSecret}`) {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
      return;
    }
    const maskKeys: number[][] = [];
    const frames: Connection["frames"] = [];
    collectFrames(socket, maskKeys, frames);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const closed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
      const received = { binary: 0, text: 0 };
      ws.on("message", (_data, isBinary) => {
        if (isBinary) received.binary += 1;
        else received.text += 1;
      });
      const wire = req.headers[WIRE_HEADER] as string | undefined;
      const target = new FakeDo();
      const stub = framesDo
        ? new RpcSession<DaemonApi>(
            new WireTransport(ws, { frames: wire === "frames" }),
            target,
          ).getRemoteMain()
        : newWebSocketRpcSession<DaemonApi>(ws as unknown as WebSocket, target);
      const authorization = req.headers.authorization;
      const early = callAtOnce ? stub.health() : undefined;
      early?.catch(() => undefined);
      connections.push({
        ...(early ? { early } : {}),
        socket: ws,
        authorization,
        wire,
        daemon: stub,
        target,
        closed,
        received,
        maskKeys,
        frames,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/computerd`;
  daemon = await testDaemon({}, { onLink: (link) => links.push(link) });
  expectedSecret = daemon.config.secret;
});
afterEach(() => {
  expectedSecret = daemon.config.secret;
  framesDo = false;
  callAtOnce = false;
});
afterAll(async () => {
  await daemon.close();
  server.closeAllConnections();
  server.close();
});

const connect = (body: unknown) =>
  daemon.call("/connect", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });

/** Has the daemon dial back to `base`: the DO's side of the new link and the daemon's stub of it. */
async function connectLink(): Promise<{ connection: Connection; remote: Link["remote"] }> {
  await connect({ base });
  const connection = connections.at(-1);
  const remote = links.at(-1)?.remote;
  if (!connection || !remote) throw new Error("no connection");
  return { connection, remote };
}

describe("POST /connect", () => {
  test("dials back presenting the secret and serves DaemonApi", async () => {
    const response = await connect({ base });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ connected: true, url: base.replace("http:", "ws:") });
    const connection = connections.at(-1);
    expect(connection?.authorization).toBe(`Bearer ${daemon.config.secret}`);
    const health = await connection?.daemon.health();
    expect(health).toEqual({ ok: true, mirror: "", running: [] });
  });

  test.each([false, true])(
    "a call the DO makes as it accepts (frames right behind its 101) is answered (binary frames: %s)",
    async (frames) => {
      framesDo = frames;
      callAtOnce = true;
      for (let i = 0; i < 5; i++) {
        expect((await connect({ base })).status).toBe(200);
        const early = connections.at(-1)?.early;
        const late = new Promise((resolve) => setTimeout(() => resolve("no answer"), 5000));
        expect(await Promise.race([early, late])).toEqual({
          ok: true,
          mirror: "",
          running: [],
        });
      }
    },
  );

  test("exec streams output and exit to the DO's sink, attach replays from a seq, kill ends it", async () => {
    await connect({ base });
    const stub = connections.at(-1)?.daemon;
    if (!stub) throw new Error("no connection");
    const sink = new Sink();
    const started = await stub.exec({ id: "ex_link1", command: "echo a; sleep 0.05; echo b >&2" }, sink);
    expect(started.pid).toBeGreaterThan(0);
    expect(await sink.done).toMatchObject({ execId: "ex_link1", status: "completed", exitCode: 0 });
    expect(sink.received).toEqual([
      { seq: 0, stream: "stdout", data: "a\n" },
      { seq: 1, stream: "stderr", data: "b\n" },
    ]);

    const again = new Sink();
    expect(await stub.attach("ex_link1", again, 0)).toBe(true);
    await again.done;
    expect(again.received).toEqual([{ seq: 1, stream: "stderr", data: "b\n" }]);
    expect(await stub.attach("ex_unknown", new Sink())).toBe(false);

    const long = new Sink();
    await stub.exec({ id: "ex_link2", command: "echo go; sleep 30" }, long);
    expect((await stub.health()).running).toEqual(["ex_link2"]);
    await expect.poll(() => long.received.length).toBe(1);
    expect(await stub.kill("ex_link2")).toBe(true);
    expect(await long.done).toMatchObject({ status: "killed", exitCode: 137, signal: "SIGKILL" });
    expect(long.received).toEqual([{ seq: 0, stream: "stdout", data: "go\n" }]);
  });

  test("a bad exec spec is an error the DO sees with its code", async () => {
    await connect({ base });
    const stub = connections.at(-1)?.daemon;
    await expect(stub?.exec({ id: "ex_bad", command: "" }, new Sink())).rejects.toMatchObject({
      code: "EINVAL",
    });
  });

  test("computerd can call the DO's API on the link", async () => {
    await connect({ base });
    const link = links.at(-1);
    expect(link).toBeDefined();
    expect(await link?.remote.rev()).toBe(42);
  });

  test("chunk bytes go as binary frames both ways to a DO that takes them, as base64 text to one that does not", async () => {
    const data = new Uint8Array(3 << 20).map((_, i) => (i * 7) % 251);
    for (const frames of [true, false]) {
      framesDo = frames;
      const { connection, remote } = await connectLink();
      expect(connection.wire).toBe("frames");
      // The DO speaks first here (as it does before a command): a frames DO sends a frame.
      expect((await connection.daemon.health()).ok).toBe(true);
      await remote.putBlobs([{ hash: "h", data }]);
      // (capnweb's text decoding gives a Buffer, a frame a Uint8Array: compared as bytes.)
      const same = (bytes: Uint8Array | undefined) => bytes !== undefined && Buffer.from(bytes).equals(data);
      expect(same(connection.target.blobs.get("h"))).toBe(true);
      const [back] = await remote.getBlobs(["h"]);
      expect(same(back?.data)).toBe(true);
      // To a DO that takes frames, computerd's first message after the DO's first frame (the
      // health answer) and its messages with bytes (the putBlobs call) go as frames; the rest
      // (the getBlobs call) as text, as everything to a DO that does not.
      const { binary, text } = connection.received;
      expect({ frames, binary, text: text >= 1 }).toEqual({ frames, binary: frames ? 2 : 0, text: true });
    }
  });

  test("to a DO on this machine, frames go with a zero masking key (ws sends the bytes as they are)", async () => {
    framesDo = true;
    const { connection, remote } = await connectLink();
    await remote.putBlobs([{ hash: "z", data: new Uint8Array(1 << 20).fill(7) }]);
    expect(connection.target.blobs.get("z")?.every((b) => b === 7)).toBe(true);
    expect(connection.maskKeys.length).toBeGreaterThan(0);
    // Still masked frames as the RFC wants of a client, with a key that changes nothing.
    expect(new Set(connection.maskKeys.map((key) => key.join(",")))).toEqual(new Set(["0,0,0,0"]));
  });

  test("a message with bytes goes in fragments: the header, then each byte string as it is", async () => {
    framesDo = true;
    const { connection, remote } = await connectLink();
    expect((await connection.daemon.health()).ok).toBe(true);
    const a = new Uint8Array(1 << 20).fill(1);
    const b = new Uint8Array(5000).fill(2);
    const before = connection.frames.length;
    const messages = connection.received.binary;
    await remote.putBlobs([
      { hash: "a", data: a },
      { hash: "b", data: b },
    ]);
    expect(connection.target.blobs.get("a")).toEqual(a);
    expect(connection.target.blobs.get("b")).toEqual(b);
    // The putBlobs call: a binary fragment (the header), then the two byte strings as
    // continuations, the last with FIN; ws on the other end hands over one message.
    const call = connection.frames.slice(before).slice(0, 3);
    expect(call.map(({ opcode, fin }) => ({ opcode, fin }))).toEqual([
      { opcode: 2, fin: false },
      { opcode: 0, fin: false },
      { opcode: 0, fin: true },
    ]);
    expect(call.slice(1).map((frame) => frame.length)).toEqual([a.byteLength, b.byteLength]);
    expect(connection.received.binary).toBe(messages + 1);
  });

  test("masking is skipped only where no proxy can read the frames: TLS or loopback", () => {
    expect(unreadableOnTheWay("ws://127.0.0.1:8787/x")).toBe(true);
    expect(unreadableOnTheWay("ws://localhost/x")).toBe(true);
    expect(unreadableOnTheWay("ws://[::1]:1/x")).toBe(true);
    expect(unreadableOnTheWay("wss://computer.example/x")).toBe(true);
    expect(unreadableOnTheWay("ws://computer.example/x")).toBe(false);
    expect(unreadableOnTheWay("ws://10.0.0.2/x")).toBe(false);
    expect(unreadableOnTheWay("ws://127.0.0.1.example/x")).toBe(false);
  });

  test("a new connect replaces the previous link", async () => {
    await connect({ base });
    const first = connections.at(-1);
    const firstLink = daemon.links.current;
    await connect({ base });
    const second = connections.at(-1);
    expect(second).not.toBe(first);
    await first?.closed;
    expect(daemon.links.current).not.toBe(firstLink);
    expect(daemon.links.current?.id).toBeGreaterThan(firstLink?.id ?? 0);
    expect((await second?.daemon.health())?.ok).toBe(true);
    await expect(first?.daemon.health()).rejects.toThrow();
  });

  test("a DO that refuses the secret, or no DO at all, is a 503 EUNAVAILABLE (the API's table); the current link stays", async () => {
    await connect({ base });
    const current = daemon.links.current;
    expectedSecret = "something else";
    const refused = await connect({ base });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: "EUNAVAILABLE" } });
    const nobody = await connect({ base: "ws://127.0.0.1:1/x" });
    expect(nobody.status).toBe(503);
    expect(daemon.links.current).toBe(current);
  });

  test("base must be an http(s) or ws(s) URL", async () => {
    expect((await connect({})).status).toBe(400);
    expect((await connect({ base: "ftp://x" })).status).toBe(503);
    expect(linkUrl("https://do.example/c/1?x=1")).toBe("wss://do.example/c/1?x=1");
    expect(() => linkUrl("not a url")).toThrow();
  });
});
