/**
 * The container runtime end to end: real `wrangler dev` + real `computerd host` (one
 * `computerd serve` per computer, FUSE mount, bubblewrap sandbox), driven only through the
 * HTTP API. A file PUT through the API is read by `cat` in the container; a file written in
 * the container is readable through the API as soon as the exec returns; 10,000 small files
 * written by one command are all synced (`sync.status: "complete"`) and listed; SSE output
 * arrives before the exit. Needs root, /dev/fuse and bwrap (the CI machine has them).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, startFleet } from "./fleet.ts";

function hasBwrap(): boolean {
  try {
    execFileSync("bwrap", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const capable = process.getuid?.() === 0 && existsSync("/dev/fuse") && hasBwrap();

interface Result {
  id: string;
  status: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  sync: { status: string; rev?: number; conflicts: unknown[] };
  error?: { code: string; message: string };
}

let fleet: Fleet;
const ID = "e2e-container";

function auth(): Record<string, string> {
  return { Authorization: `Bearer ${fleet.adminToken}` };
}

function url(path: string): string {
  return `${fleet.url}/v1/computers/${ID}${path}`;
}

async function exec(source: string, timeoutMs = 120_000): Promise<Result> {
  const res = await fetch(url("/exec"), {
    method: "POST",
    headers: { ...auth(), "Content-Type": "application/json" },
    body: JSON.stringify({ runtime: "container", source, timeoutMs }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Result;
}

/** Fails with everything the result says when the exec did not complete cleanly. */
function expectCompleted(result: Result): void {
  expect({ status: result.status, exitCode: result.exitCode }, JSON.stringify(result)).toEqual({
    status: "completed",
    exitCode: 0,
  });
}

describe.skipIf(!capable)("container runtime (wrangler dev + computerd host + FUSE + bwrap)", () => {
  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: true });
    const res = await fetch(url(""), { method: "PUT", headers: auth() });
    expect(res.status).toBe(201);
    // The whole chain runs for this probe: DO → computerd host → computerd serve → /connect →
    // dial-back WebSocket through wrangler dev → capnweb → DaemonApi.
    const probe = await exec("true");
    expectCompleted(probe);
    expect(probe.sync.status).toBe("complete");
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it("a file PUT through the API is read by cat in the container", async () => {
    const put = await fetch(url("/files/notes/hello.txt"), {
      method: "PUT",
      headers: auth(),
      body: "hello from the API\n",
    });
    expect(put.status).toBe(201);
    const result = await exec("cat notes/hello.txt");
    expectCompleted(result);
    expect(result.stdout).toBe("hello from the API\n");
  }, 180_000);

  it("a file written in the container is readable through the API right after the exec returns", async () => {
    const result = await exec("mkdir -p out && printf 'made in the container' > out/result.txt");
    expectCompleted(result);
    expect(result.sync.status).toBe("complete");
    const res = await fetch(url("/files/out/result.txt"), { headers: auth() });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("made in the container");
  }, 120_000);

  it("10,000 small files written by one command are synced and listed", async () => {
    const result = await exec(
      "mkdir -p many && cd many && i=0; while [ $i -lt 10000 ]; do echo $i > f$i; i=$((i+1)); done",
      600_000,
    );
    expectCompleted(result);
    expect(result.sync.status).toBe("complete");
    const names = new Set<string>();
    let after: string | undefined;
    do {
      const query = new URLSearchParams({ limit: "10000", ...(after ? { after } : {}) });
      const res = await fetch(url(`/files/many?${query}`), { headers: auth() });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { entries: { name: string }[]; next?: string };
      for (const entry of page.entries) names.add(entry.name);
      after = page.next;
    } while (after !== undefined);
    expect(names.size).toBe(10_000);
    const sample = await fetch(url("/files/many/f4242"), { headers: auth() });
    expect(await sample.text()).toBe("4242\n");
  }, 900_000);

  it("streams output over SSE before the exit", async () => {
    const res = await fetch(url("/exec"), {
      method: "POST",
      headers: { ...auth(), "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ runtime: "container", source: "echo first; sleep 2; echo second" }),
    });
    expect(res.status).toBe(200);
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error("no body");
    const arrivals: { event: string; at: number; data: string }[] = [];
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
        arrivals.push({ event, at: Date.now(), data });
      }
    }
    expect(arrivals.map((a) => a.event)).toEqual(["stdout", "stdout", "exit"]);
    const [first, , exit] = arrivals;
    expect(JSON.parse(first?.data ?? "{}")).toEqual({ seq: 0, data: "first\n" });
    expect((exit?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThan(1500);
    expect(JSON.parse(exit?.data ?? "{}")).toMatchObject({ status: "completed", exitCode: 0 });
  }, 120_000);
});
