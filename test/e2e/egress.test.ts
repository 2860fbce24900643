/**
 * The egress policy of the shell and js runtimes on the real local fleet, with an HTTP server
 * on 127.0.0.1 standing in for the internet: `none` (default) reaches nothing, `all` reaches
 * it, `{ allow: [host:port] }` reaches only that host and port (through the gateway fetcher),
 * and a redirect from an allowed host to another one is refused.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Fleet, startFleet } from "@computer/fleet";
import type { ContractFetch, ContractResult } from "@computer/worker/exec-contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComputer, fleetFetch } from "./fleet-fetch.ts";

let fleet: Fleet;
let api: ContractFetch;
let server: Server;
let port = 0;
const hits: string[] = [];
const BODY = "hello from the stand-in internet";

async function run(id: string, runtime: "shell" | "js", source: string): Promise<ContractResult> {
  const res = await api(`/v1/computers/${id}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ runtime, source, timeoutMs: 20_000 }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as ContractResult;
}

const target = (path: string) => `http://127.0.0.1:${port}${path}`;
const jsFetch = (url: string) =>
  `export default () => fetch(${JSON.stringify(url)}).then((r) => r.text(), (e) => "refused: " + e.message);`;

/** Runs curl and fetch for `path` on computer `id`; returns what each got. */
async function both(id: string, path: string): Promise<{ shell: ContractResult; js: string }> {
  const shell = await run(id, "shell", `curl -sS -L ${target(path)}`);
  const js = await run(id, "js", jsFetch(target(path)));
  return { shell, js: String(js.value) };
}

describe("egress policy (shell and js)", () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url === "/redirect") {
        res.writeHead(302, { Location: `http://localhost:${port}/hello` }).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "text/plain" }).end(BODY);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    fleet = await startFleet();
    api = fleetFetch(fleet);
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("none (the default): nothing leaves", async () => {
    const id = await createComputer(api, "e2e-egress-none");
    const before = hits.length;
    const { shell, js } = await both(id, "/hello");
    expect(shell.status).toBe("failed");
    expect(shell.stdout).not.toContain(BODY);
    expect(js).toMatch(/^refused: /);
    expect(hits.length).toBe(before);
  });

  it("all: the server is reached", async () => {
    const id = await createComputer(api, "e2e-egress-all", { egress: "all" });
    const { shell, js } = await both(id, "/hello");
    expect(shell).toMatchObject({ status: "completed", stdout: BODY });
    expect(js).toBe(BODY);
  });

  it("allow [host:port]: that host is reached through the gateway", async () => {
    const id = await createComputer(api, "e2e-egress-allow", { egress: { allow: [`127.0.0.1:${port}`] } });
    const { shell, js } = await both(id, "/hello");
    expect(shell).toMatchObject({ status: "completed", stdout: BODY });
    expect(js).toBe(BODY);
  });

  it("allow: a redirect to a host not on the list is refused", async () => {
    const id = await createComputer(api, "e2e-egress-redirect", { egress: { allow: [`127.0.0.1:${port}`] } });
    const before = hits.filter((h) => h === "/hello").length;
    const { shell, js } = await both(id, "/redirect");
    expect(shell.status).toBe("failed");
    expect(shell.stdout).not.toContain(BODY);
    expect(js).toMatch(/^refused: /);
    expect(hits.filter((h) => h === "/hello").length).toBe(before);
  });

  it("allow: other hosts and ports are refused", async () => {
    const id = await createComputer(api, "e2e-egress-other", {
      egress: { allow: ["127.0.0.1:1", "localhost"] },
    });
    const before = hits.length;
    const { shell, js } = await both(id, "/hello");
    expect(shell.status).toBe("failed");
    expect(js).toMatch(/^refused: /);
    expect(hits.length).toBe(before);
  });
});
