/**
 * `computerd host` against real `computerd serve` children (no sandbox, so it runs anywhere):
 * ensure starts one daemon per computer on its own port with its own secret, reuses it for
 * the same spec and relaunches it for another, stop/delete, the token, errors from the API's
 * table, the idle sweeper, and the preview hop (HTTP and upgrades to a computer's port, 401/502 when it cannot).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { HTTP_STATUS } from "@computer/sdk/errors";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WebSocketServer } from "ws";
import { startHost } from "./bwrap-launcher.ts";
import { type HostConfig, parseHostConfig } from "./host-config.ts";
import type { Host } from "./host-server.ts";

const TOKEN = "host-token-0123456789";
let dir: string;
let host: Host;
let base: string;

function config(overrides: Partial<HostConfig> = {}): HostConfig {
  const parsed = parseHostConfig(["--port", "0", "--dir", dir, "--sandbox", "none", "--mount", "none"], {
    COMPUTERD_HOST_TOKEN: TOKEN,
  });
  if (parsed === "help") throw new Error("help");
  return { ...parsed, ...overrides };
}

function call(method: string, path: string, body?: unknown, token = TOKEN): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function ensure(
  id: string,
  specHash = "h1",
  egress = "none",
): Promise<{ url: string; secret: string }> {
  const res = await call("POST", `/computers/${id}/ensure`, { spec: { egress, env: {} }, specHash });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { url: string; secret: string };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "computerd-host-"));
  host = await startHost(config(), () => undefined);
  base = `http://127.0.0.1:${host.port}`;
});

afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("computerd host", () => {
  test("refuses requests without the token; /health is open", async () => {
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await call("POST", "/computers/a/ensure", {}, "wrong-token-000000000")).status).toBe(401);
    expect((await call("POST", "/computers/Bad_Id/ensure", {})).status).toBe(400);
  });

  test("ensure starts a daemon per computer, reuses it, relaunches on a new spec", async () => {
    const [a, b] = await Promise.all([ensure("a"), ensure("b")]);
    expect(a.url).not.toBe(b.url);
    expect(a.secret).not.toBe(b.secret);
    expect((await fetch(`${a.url}/health`)).status).toBe(200);
    const exec = await fetch(`${a.url}/exec`, {
      method: "POST",
      headers: { Authorization: `Bearer ${a.secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ source: "echo hello" }),
    });
    expect(await exec.json()).toMatchObject({ status: "completed", stdout: "hello\n" });
    expect((await ensure("a")).secret).toBe(a.secret);
    const relaunched = await ensure("a", "h2", "all");
    expect(relaunched.secret).not.toBe(a.secret);
    await expect(fetch(`${a.url}/health`)).rejects.toThrow();
    expect(await (await call("GET", "/computers/a")).json()).toEqual({ running: true, healthy: true });
    // Three daemon starts and a stop: seconds each on a loaded machine, not the 5 s default.
  }, 60_000);

  test("a daemon started with dialBack dials it by itself with its secret (dialing); a reused one is not", async () => {
    const dials: { url: string; authorization: string | undefined }[] = [];
    const doServer = createServer();
    const wss = new WebSocketServer({ server: doServer });
    wss.on("connection", (_socket, req) => {
      dials.push({ url: req.url ?? "", authorization: req.headers.authorization });
    });
    await new Promise<void>((resolve) => doServer.listen(0, "127.0.0.1", resolve));
    const dialBack = `http://127.0.0.1:${(doServer.address() as AddressInfo).port}/v1/computers/d/_computerd`;
    try {
      const ask = async () => {
        const res = await call("POST", "/computers/d/ensure", {
          spec: { egress: "none", env: {} },
          specHash: "h1",
          dialBack,
        });
        expect(res.status).toBe(200);
        return (await res.json()) as { secret: string; dialing: boolean };
      };
      const first = await ask();
      expect(first.dialing).toBe(true);
      await expect
        .poll(() => dials)
        .toEqual([{ url: "/v1/computers/d/_computerd", authorization: `Bearer ${first.secret}` }]);
      const again = await ask();
      expect(again).toMatchObject({ secret: first.secret, dialing: false });
      expect((await ensure("e")) as unknown).toMatchObject({ dialing: false });
      expect(dials).toHaveLength(1);
    } finally {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise((resolve) => doServer.close(resolve));
    }
  }, 60_000);

  test("stop keeps the state, delete removes it", async () => {
    await ensure("c");
    expect((await call("POST", "/computers/c/stop")).status).toBe(204);
    expect(await (await call("GET", "/computers/c")).json()).toEqual({ running: false, healthy: false });
    expect(existsSync(join(dir, "state", "c"))).toBe(true);
    expect((await call("DELETE", "/computers/c")).status).toBe(204);
    expect(existsSync(join(dir, "state", "c"))).toBe(false);
  });

  test("answers errors with the API's table (@computer/sdk/errors)", async () => {
    const expectError = async (res: Response, status: number, code: string) => {
      expect(res.status).toBe(HTTP_STATUS[code as keyof typeof HTTP_STATUS]);
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code,
        message: expect.any(String),
      });
    };
    await expectError(await call("GET", "/computers/a/ensure"), 405, "ENOTSUP");
    await expectError(await call("GET", "/computers/a/nope"), 404, "ENOENT");
    await expectError(
      await call("GET", "/computers/a", undefined, "wrong-token-000000000"),
      401,
      "EUNAUTHORIZED",
    );
    const malformed = await fetch(`${base}/computers/a/ensure`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}` },
      body: "{",
    });
    await expectError(malformed, 400, "EINVAL");
    // A daemon that cannot start: the computer is unavailable (503), and nothing is left running.
    const broken = await startHost(
      config({ computerd: [process.execPath, "-e", "process.exit(3)"] }),
      () => undefined,
    );
    try {
      const res = await fetch(`http://127.0.0.1:${broken.port}/computers/broken/ensure`, {
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ spec: {}, specHash: "h" }),
      });
      await expectError(res, 503, "EUNAVAILABLE");
      expect(broken.daemons.size).toBe(0);
    } finally {
      await broken.close();
    }
  });

  test("stops daemons that stayed idle", async () => {
    let stopped: () => void = () => undefined;
    const stoppedIdle = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    const idleHost = await startHost(config({ idleMs: 300 }), (line) => {
      if (line === "host: stopped idle computerd of idle") stopped();
    });
    try {
      const res = await fetch(`http://127.0.0.1:${idleHost.port}/computers/idle/ensure`, {
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ spec: { egress: "none" }, specHash: "h" }),
      });
      const { url } = (await res.json()) as { url: string };
      // The host forgets the daemon as its stop begins and says so once the process has exited.
      await stoppedIdle;
      expect(idleHost.daemons.size).toBe(0);
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    } finally {
      await idleHost.close();
    }
  });
});

describe("computerd host previews", () => {
  let app: Server;
  let appPort: number;
  const seen: { url?: string; host?: string; authorization?: string; proxy?: string }[] = [];

  beforeAll(async () => {
    app = createServer((req, res) => {
      seen.push({
        url: req.url,
        host: req.headers.host,
        authorization: req.headers.authorization,
        proxy: req.headers["proxy-authorization"],
      });
      res.end("from the app");
    });
    // An upgrade answered 101, then every byte echoed back.
    app.on("upgrade", (_req, socket) => {
      socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n");
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    appPort = (app.address() as AddressInfo).port;
    // Commands of this host run unsandboxed, so the computer's ports are the host's loopback.
    await ensure("pv");
  });

  afterAll(() => {
    app?.close();
  });

  const proxied = (path: string, init: RequestInit = {}, token = TOKEN) =>
    fetch(`${base}/computers/pv/ports/${appPort}${path}`, {
      ...init,
      headers: { "Proxy-Authorization": `Bearer ${token}`, ...(init.headers as Record<string, string>) },
    });

  test("forwards HTTP to the port with the app's path, its own Authorization and Host localhost:<port>", async () => {
    const res = await proxied("/x/y?z=1", { headers: { Authorization: "Basic app" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("from the app");
    expect(seen.at(-1)).toEqual({
      url: "/x/y?z=1",
      host: `localhost:${appPort}`,
      authorization: "Basic app",
      proxy: undefined,
    });
  });

  test("forwards upgrades byte for byte", async () => {
    const socket = await new Promise<Duplex>((resolve, reject) => {
      const req = httpRequest(`${base}/computers/pv/ports/${appPort}/`, {
        headers: { "Proxy-Authorization": `Bearer ${TOKEN}`, Connection: "Upgrade", Upgrade: "echo" },
      });
      req.on("upgrade", (res, upgraded) => {
        expect(res.statusCode).toBe(101);
        resolve(upgraded);
      });
      req.on("error", reject);
      req.end();
    });
    const echoed = new Promise<string>((resolve) => socket.once("data", (chunk) => resolve(String(chunk))));
    socket.write("ping");
    expect(await echoed).toBe("ping");
    socket.destroy();
  });

  test("refuses wrong proxy credentials (401); nothing listening or no daemon is 502 ECONNREFUSED", async () => {
    expect((await proxied("/", {}, "wrong-token-000000000")).status).toBe(401);
    const closed = await fetch(`${base}/computers/pv/ports/1/`, {
      headers: { "Proxy-Authorization": `Bearer ${TOKEN}` },
    });
    expect(closed.status).toBe(502);
    expect(((await closed.json()) as { error: { code: string } }).error.code).toBe("ECONNREFUSED");
    const stopped = await fetch(`${base}/computers/never-started/ports/${appPort}/`, {
      headers: { "Proxy-Authorization": `Bearer ${TOKEN}` },
    });
    expect(stopped.status).toBe(502);
    expect(await stopped.json()).toEqual({
      error: {
        code: "ECONNREFUSED",
        message: `port ${appPort} of the computer's container refused: the computer's container is not running`,
      },
    });
  });
});
