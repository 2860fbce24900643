/**
 * A bubblewrap sandbox (egress none: loopback only) with the egress proxy bound in: curl,
 * going by HTTPS_PROXY, reaches the allowed server on the host's 127.0.0.1 and gets a 403
 * for another; without the proxy it reaches nothing.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bubblewrapWrapper } from "../exec/bwrap.ts";
import { withEgressProxy } from "./egress-forward.ts";
import { type EgressProxy, startEgressProxy } from "./egress-proxy.ts";

const dir = mkdtempSync(join(tmpdir(), "egress-forward-"));
const workspace = join(dir, "workspace");
const socketPath = join(dir, "proxy.sock");
let allowed: Server;
let other: Server;
let proxy: EgressProxy;
const portOf = (server: Server) => (server.address() as AddressInfo).port;

async function listen(name: string): Promise<Server> {
  const server = createServer((_req, res) => res.end(`hello from ${name}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** Runs `command` in the sandbox (async spawn: the servers answer from this process). */
function run(command: string): Promise<string> {
  const plan = withEgressProxy(bubblewrapWrapper({ workspace, egress: "none" }), socketPath)({
    command,
    cwd: "/workspace",
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
  });
  const [file, ...args] = plan.argv;
  return new Promise((resolve, reject) => {
    const options = { env: plan.env, uid: plan.uid, gid: plan.gid, timeout: 60_000 };
    execFile(file, args, options, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

beforeAll(async () => {
  chmodSync(dir, 0o711);
  mkdirSync(workspace, { mode: 0o777 });
  chmodSync(workspace, 0o777);
  allowed = await listen("allowed");
  other = await listen("other");
  proxy = await startEgressProxy({ allow: [`127.0.0.1:${portOf(allowed)}`] }, socketPath);
});

afterAll(async () => {
  await proxy.close();
  allowed.close();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("egress forwarder in bubblewrap", () => {
  test("the allowed host is reached through the proxy, another is a 403, nothing directly", async () => {
    const out = await run(
      [
        `curl -sS --max-time 20 http://127.0.0.1:${portOf(allowed)}/; echo`,
        `curl -sS --max-time 20 -o /dev/null -w 'other=%{http_code}\\n' http://127.0.0.1:${portOf(other)}/`,
        `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${portOf(allowed)}/ >/dev/null 2>&1 && echo direct=reached || echo direct=refused`,
      ].join("\n"),
    );
    expect(out).toBe("hello from allowed\nother=403\ndirect=refused\n");
  });
});
