/**
 * The Worker side of the container runtime against the REAL sync protocol, end to end:
 * the local Worker (the Computer DO) ↔ a stand-in computerd whose mirror runs the real sync engine
 * on node:sqlite (mirror-daemon.ts), over the real dial-back WebSocket and capnweb. Checked
 * through the HTTP API only: DO changes reach the mirror before a command runs, the command's
 * changes are in the DO when its result returns (10,000 files too), output streams before the
 * exit, and a failed fence leaves the sync `pending` until the DO's alarm completes it.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import type { ExecResult as Result } from "@computer/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MirrorHost } from "./mirror-daemon.ts";

let fleet: Fleet;
let host: MirrorHost;

function auth(): Record<string, string> {
  return { Authorization: `Bearer ${fleet.adminToken}` };
}

async function createComputer(id: string): Promise<void> {
  const res = await fetch(`${fleet.url}/v1/computers/${id}`, { method: "PUT", headers: auth() });
  expect(res.status).toBe(201);
}

async function exec(id: string, source: string): Promise<Result> {
  const res = await fetch(`${fleet.url}/v1/computers/${id}/exec`, {
    method: "POST",
    headers: { ...auth(), "Content-Type": "application/json" },
    body: JSON.stringify({ runtime: "container", source }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Result;
}

async function readFile(id: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${fleet.url}/v1/computers/${id}/files/${path}`, { headers: auth() });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  host = new MirrorHost();
  await host.listen();
  fleet = await startFleet({ vars: { COMPUTERD_HOST_URL: host.url, COMPUTERD_HOST_TOKEN: host.token } });
});

afterAll(async () => {
  await fleet?.stop();
  host?.close();
});

describe("container runtime over the real sync link", () => {
  it("pushes DO changes before the command and applies the command's changes before the result", async () => {
    await createComputer("sync-a");
    const put = await fetch(`${fleet.url}/v1/computers/sync-a/files/docs/in.txt`, {
      method: "PUT",
      headers: auth(),
      body: "written through the API",
    });
    expect(put.status).toBe(201);
    const read = await exec("sync-a", "cat /docs/in.txt\nwrite /docs/out.txt made by the command");
    expect(read, JSON.stringify(read)).toMatchObject({
      status: "completed",
      exitCode: 0,
      stdout: "written through the API",
    });
    expect(read.sync.status).toBe("complete");
    expect(read.sync.rev).toBeGreaterThan(0);
    expect(await readFile("sync-a", "docs/out.txt")).toEqual({ status: 200, text: "made by the command" });
    expect(host.daemons.get("sync-a")?.connects).toBe(1);
    // A later API change and a second command over the same link.
    await fetch(`${fleet.url}/v1/computers/sync-a/files/docs/in.txt`, {
      method: "PUT",
      headers: auth(),
      body: "changed",
    });
    expect((await exec("sync-a", "cat /docs/in.txt")).stdout).toBe("changed");
    expect(host.daemons.get("sync-a")?.connects).toBe(1);
  }, 120_000);

  it("10,000 files written by one command are all in the DO when the result says complete", async () => {
    await createComputer("sync-many");
    const result = await exec("sync-many", "many /many 10000");
    expect(result, JSON.stringify(result)).toMatchObject({
      status: "completed",
      sync: { status: "complete" },
    });
    let count = 0;
    let after: string | undefined;
    do {
      const query = new URLSearchParams({ limit: "10000", ...(after ? { after } : {}) });
      const res = await fetch(`${fleet.url}/v1/computers/sync-many/files/many?${query}`, { headers: auth() });
      const page = (await res.json()) as { entries: unknown[]; next?: string };
      count += page.entries.length;
      after = page.next;
    } while (after !== undefined);
    expect(count).toBe(10_000);
    expect(await readFile("sync-many", "many/f9999")).toEqual({ status: 200, text: "9999\n" });
  }, 600_000);

  it("streams output over SSE before the exit", async () => {
    await createComputer("sync-sse");
    const res = await fetch(`${fleet.url}/v1/computers/sync-sse/exec`, {
      method: "POST",
      headers: { ...auth(), "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ runtime: "container", source: "echo first\nsleep 1500\necho second" }),
    });
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error("no body");
    const arrivals: { event: string; at: number }[] = [];
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const event = /^event: (.*)$/m.exec(buffer.slice(0, end))?.[1] ?? "message";
        arrivals.push({ event, at: Date.now() });
        buffer = buffer.slice(end + 2);
      }
    }
    expect(arrivals.map((a) => a.event)).toEqual(["stdout", "stdout", "exit"]);
    expect((arrivals[2]?.at ?? 0) - (arrivals[0]?.at ?? 0)).toBeGreaterThan(1000);
  }, 120_000);

  it("a failed fence is pending, then completed by the DO's alarm", async () => {
    await createComputer("sync-pending");
    await exec("sync-pending", "echo warm");
    const daemon = host.daemons.get("sync-pending");
    if (daemon === undefined) throw new Error("no daemon");
    daemon.failFences = 1;
    const result = await exec("sync-pending", "write /late.txt arrives later");
    expect(result).toMatchObject({ status: "completed", sync: { status: "pending" } });
    const deadline = Date.now() + 60_000;
    let sync = result.sync;
    while (sync.status !== "complete" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const res = await fetch(`${fleet.url}/v1/computers/sync-pending/exec/${result.id}`, {
        headers: auth(),
      });
      sync = ((await res.json()) as Result).sync;
    }
    expect(sync.status).toBe("complete");
    expect(await readFile("sync-pending", "late.txt")).toEqual({ status: 200, text: "arrives later" });
  }, 120_000);
});
