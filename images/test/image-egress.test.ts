/**
 * An allow-list in the image itself, the way production runs it (computerd without a sandbox,
 * EGRESS_ALLOW from the launcher): the container runs as the docker host runs it (docker's
 * default capabilities plus SYS_ADMIN, host network), so without computerd's namespace its
 * commands would reach everything on the host. With it, a command reaches the allowed server
 * on the host's 127.0.0.1 through HTTPS_PROXY, gets a 403 for another, nothing directly (no
 * route), and cannot join the container's network again. docs/deploy.md cites this test.
 * Needs a docker engine and the image: `make image` first (IMAGE overrides the reference).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docker, runArgs } from "../src/docker-host.ts";

const IMAGE = process.env.IMAGE ?? "computer/computerd:latest";
const secret = randomBytes(24).toString("hex");
const name = `computerd-egress-${randomBytes(3).toString("hex")}`;
let allowed: Server;
let other: Server;
let port = 0;
const portOf = (server: Server) => (server.address() as AddressInfo).port;

async function listen(text: string): Promise<Server> {
  const server = createServer((_req, res) => res.end(text));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

async function exec(source: string): Promise<{ status: string; stdout: string; stderr: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/exec`, {
    method: "POST",
    headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
    body: JSON.stringify({ source, cwd: "/" }),
  });
  return (await res.json()) as { status: string; stdout: string; stderr: string };
}

describe("the image's computerd under an allow-list (no sandbox, as in production)", () => {
  beforeAll(async () => {
    execFileSync("docker", ["image", "inspect", IMAGE], { stdio: "ignore" });
    allowed = await listen("allowed");
    other = await listen("other");
    const probe = await listen("");
    port = portOf(probe);
    probe.close();
    // No link to a Durable Object here: no mount, commands run in /.
    const env = { MOUNT_BACKEND: "none", EGRESS_ALLOW: `127.0.0.1:${portOf(allowed)}` };
    await docker(runArgs(IMAGE, name, port, env), { ...process.env, COMPUTERD_SECRET: secret });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const up = await fetch(`http://127.0.0.1:${port}/health`).then(
        (res) => res.ok,
        () => false,
      );
      if (up) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`computerd in ${name} did not answer: ${await docker(["logs", name]).catch(String)}`);
  });

  afterAll(async () => {
    await docker(["rm", "-f", name]).catch(() => undefined);
    allowed?.close();
    other?.close();
  });

  it("reaches the allowed host through the proxy only; 403 for another, no route, no way back", async () => {
    const result = await exec(
      [
        'echo "uid=$(id -u) proxy=$HTTPS_PROXY"',
        // Both servers are on the host's 127.0.0.1, which NO_PROXY keeps off the proxy.
        "export NO_PROXY= no_proxy=",
        `curl -sS --max-time 20 http://127.0.0.1:${portOf(allowed)}/; echo`,
        `curl -sS --max-time 20 -w ' other=%{http_code}\\n' http://127.0.0.1:${portOf(other)}/`,
        `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${portOf(other)}/ >/dev/null 2>&1 && echo direct=reached || echo direct=refused`,
        `python3 -c 'import socket; socket.create_connection(("192.0.2.1", 80), timeout=5)' 2>&1 | grep -o 'Network is unreachable' || echo route=exists`,
        "nsenter --net=/proc/1/ns/net true 2>/dev/null && echo rejoin=yes || echo rejoin=refused",
      ].join("\n"),
    );
    expect(result.status, JSON.stringify(result)).toBe("completed");
    expect(result.stdout).toContain("uid=0 proxy=http://127.0.0.1:3128\n");
    expect(result.stdout).toContain("allowed\n");
    expect(result.stdout).toContain(`egress to 127.0.0.1:${portOf(other)} is not allowed`);
    expect(result.stdout).toContain(" other=403\n");
    expect(result.stdout).toContain("direct=refused\n");
    expect(result.stdout).toContain("Network is unreachable\n");
    expect(result.stdout).toContain("rejoin=refused\n");
  });
});
