/** The HTTP server: /health, bearer auth, and the exec routes (buffered, SSE, re-attach, kill). */
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { readSse, type TestDaemon, testDaemon } from "../../test/server-harness.ts";

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await testDaemon({}, { mounted: () => false });
});
afterAll(() => daemon.close());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  daemon.call("/exec", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });

describe("health and auth", () => {
  test("GET /health needs no token", async () => {
    const response = await fetch(`${daemon.base}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, version: "0.1.0", mounted: false });
  });

  test.each([
    ["missing", undefined],
    ["wrong", "Bearer nope"],
    ["wrong scheme", `Basic ${"x".repeat(10)}`],
    ["secret with a suffix", "SUFFIX"],
    ["empty bearer", "Bearer "],
  ])("%s token → 401", async (_name, header) => {
    const headers: Record<string, string> = {};
    if (header === "SUFFIX") headers.authorization = `Bearer ${daemon.config.secret}x`;
    else if (header !== undefined) headers.authorization = header;
    const response = await fetch(`${daemon.base}/exec`, { method: "POST", body: "{}", headers });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    expect(await response.json()).toMatchObject({ error: { code: "EUNAUTHORIZED" } });
  });

  test("the scheme is case-insensitive", async () => {
    const response = await fetch(`${daemon.base}/exec`, {
      headers: { authorization: `bearer ${daemon.config.secret}` },
    });
    expect(response.status).toBe(200);
  });

  test("unknown routes are 404, wrong methods 405 (after auth)", async () => {
    expect((await daemon.call("/nope")).status).toBe(404);
    expect((await daemon.call("/exec", { method: "PUT" })).status).toBe(405);
    expect((await fetch(`${daemon.base}/nope`)).status).toBe(401);
  });
});

describe("POST /exec", () => {
  test("buffered: the result object once the command has finished", async () => {
    const response = await post({ source: "echo out; echo err >&2; exit 4", env: { X: "1" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: expect.stringMatching(/^ex_/),
      runtime: "container",
      status: "failed",
      exitCode: 4,
      stdout: "out\n",
      stderr: "err\n",
      truncated: false,
      durationMs: expect.any(Number),
    });
  });

  test("SSE: stdout/stderr events with seq, then one exit event with the result", async () => {
    const response = await post(
      { source: "echo a; sleep 0.05; echo b >&2", stdin: "" },
      { accept: "text/event-stream" },
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = await readSse(response);
    expect(events).toEqual([
      { event: "stdout", id: "0", data: { seq: 0, data: "a\n" } },
      { event: "stderr", id: "1", data: { seq: 1, data: "b\n" } },
      {
        event: "exit",
        data: expect.objectContaining({ status: "completed", exitCode: 0, stdout: "a\n", stderr: "b\n" }),
      },
    ]);
  });

  test("SSE output reaches the client while the command runs", async () => {
    const response = await post(
      { source: "echo first; sleep 1; echo second" },
      { accept: "text/event-stream" },
    );
    const reader = response.body?.getReader();
    const started = performance.now();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toContain('"first\\n"');
    expect(performance.now() - started).toBeLessThan(800);
    await reader?.cancel();
  });

  test.each([
    [{ source: 1 }],
    [{ source: "true", env: { "A-B": "x" } }],
    [{ source: "true", env: { A: 1 } }],
    [{ source: "true", runtime: "js" }],
    [{ source: "true", timeoutMs: "5" }],
    [[1]],
  ])("rejects %j with 400 EINVAL", async (body) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "EINVAL" } });
  });

  test("malformed JSON is 400, a reused id 409", async () => {
    const bad = await daemon.call("/exec", { method: "POST", body: "{nope" });
    expect(bad.status).toBe(400);
    await post({ id: "ex_twice", source: "true" });
    expect((await post({ id: "ex_twice", source: "true" })).status).toBe(409);
  });
});

describe("GET and DELETE /exec/:id", () => {
  test("running, then finished; re-attach from a seq; list", async () => {
    const id = "ex_follow";
    void post({ id, source: "echo 1; sleep 0.05; echo 2; sleep 0.3; echo 3" });
    const running = await vi.waitFor(async () => {
      const body = await (await daemon.call(`/exec/${id}`)).json();
      expect(body).toMatchObject({ status: "running" });
      return body;
    });
    expect(running).toMatchObject({ id, status: "running", lastSeq: expect.any(Number) });
    const follow = await daemon.call(`/exec/${id}?follow=1&after=0`, {
      headers: { accept: "text/event-stream" },
    });
    const events = await readSse(follow);
    expect(events.map((event) => event.event)).toEqual(["stdout", "stdout", "exit"]);
    expect(events[0]?.data).toEqual({ seq: 1, data: "2\n" });
    const finished = await (await daemon.call(`/exec/${id}`)).json();
    expect(finished).toMatchObject({ id, status: "completed", stdout: "1\n2\n3\n" });
    const lastEventId = await readSse(
      await daemon.call(`/exec/${id}?follow=1`, {
        headers: { accept: "text/event-stream", "last-event-id": "1" },
      }),
    );
    expect(lastEventId.map((event) => event.event)).toEqual(["stdout", "exit"]);
    const list = (await (await daemon.call("/exec")).json()) as { execs: { id: string }[] };
    expect(list.execs.map((exec) => exec.id)).toContain(id);
  });

  test("DELETE kills a running exec; unknown ids are 404", async () => {
    const id = "ex_kill";
    const result = post({ id, source: "sleep 30" });
    await vi.waitFor(async () => {
      expect(await (await daemon.call(`/exec/${id}`)).json()).toMatchObject({ status: "running" });
    });
    expect(await (await daemon.call(`/exec/${id}`, { method: "DELETE" })).json()).toEqual({
      id,
      killed: true,
    });
    expect(await (await result).json()).toMatchObject({ status: "killed", exitCode: 137 });
    expect(await (await daemon.call(`/exec/${id}`, { method: "DELETE" })).json()).toEqual({
      id,
      killed: false,
    });
    expect((await daemon.call("/exec/ex_none", { method: "DELETE" })).status).toBe(404);
    expect((await daemon.call("/exec/ex_none")).status).toBe(404);
    expect((await daemon.call("/exec/ex_none?follow=1&after=x")).status).toBe(404);
  });

  test("a bad after is 400", async () => {
    await post({ id: "ex_after", source: "true" });
    expect((await daemon.call("/exec/ex_after?follow=1&after=x")).status).toBe(400);
  });
});
