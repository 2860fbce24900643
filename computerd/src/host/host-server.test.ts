/**
 * `computerd host` against real `computerd serve` children (no sandbox, so it runs anywhere):
 * ensure starts one daemon per computer on its own port with its own secret, reuses it for
 * the same spec and relaunches it for another, stop/delete, the token, and the idle sweeper.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type HostConfig, parseHostConfig } from "./host-config.ts";
import { type Host, startHost } from "./host-server.ts";

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

  test("stop keeps the state, delete removes it", async () => {
    await ensure("c");
    expect((await call("POST", "/computers/c/stop")).status).toBe(204);
    expect(await (await call("GET", "/computers/c")).json()).toEqual({ running: false, healthy: false });
    expect(existsSync(join(dir, "state", "c"))).toBe(true);
    expect((await call("DELETE", "/computers/c")).status).toBe(204);
    expect(existsSync(join(dir, "state", "c"))).toBe(false);
  });

  test("stops daemons that stayed idle", async () => {
    const idleHost = await startHost(config({ idleMs: 300 }), () => undefined);
    try {
      const res = await fetch(`http://127.0.0.1:${idleHost.port}/computers/idle/ensure`, {
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ spec: { egress: "none" }, specHash: "h" }),
      });
      const { url } = (await res.json()) as { url: string };
      const deadline = Date.now() + 10_000;
      while (idleHost.daemons.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(idleHost.daemons.size).toBe(0);
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    } finally {
      await idleHost.close();
    }
  });
});
