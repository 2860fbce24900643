/**
 * The exec API over a fake in-DO runtime (test/fake-runtime.ts): validation, 503 for runtimes
 * that are not available, buffered results, SSE order and timing, follow/after re-attach,
 * listing, kill, timeout status and the output cap of the journal.
 */

import { env, runInDurableObject } from "cloudflare:test";
import type { ExecResult as Result } from "@computer/sdk/contract";
import { describe, expect, it } from "vitest";
import { ExecJournal } from "../src/exec/journal.ts";
import { installFakeRuntime, started } from "./fake-runtime.ts";
import { api, apiJson, createComputer, expectError, freshId, mintToken } from "./helpers.ts";
import { dataOf, readFrames } from "./sse.ts";

async function computerWithFake(): Promise<string> {
  const id = await createComputer();
  await installFakeRuntime(id);
  return id;
}

function exec(id: string, body: Record<string, unknown>, sse = false): Promise<Response> {
  return api(`/v1/computers/${id}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(sse ? { Accept: "text/event-stream" } : {}) },
    body: JSON.stringify({ runtime: "container", ...body }),
  });
}

async function run(id: string, source: string, extra: Record<string, unknown> = {}): Promise<Result> {
  const res = await exec(id, { source, ...extra });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Result;
}

async function removeRuntime(id: string, runtime: "shell" | "js"): Promise<void> {
  await runInDurableObject(env.COMPUTER.getByName(id), (instance) => {
    instance.execHostForTests().useRuntime(runtime, undefined);
  });
}

describe("exec availability and validation", () => {
  it.each(["container", "shell", "js"] as const)(
    "runtime %s without a runtime → 503 EUNAVAILABLE",
    async (runtime) => {
      const id = await createComputer();
      if (runtime !== "container") await removeRuntime(id, runtime);
      const body = await expectError(
        await apiJson("POST", `/v1/computers/${id}/exec`, { runtime, source: "echo hi" }),
        503,
        "EUNAVAILABLE",
      );
      expect(body.error.message).toBe(`runtime ${runtime} not available`);
      expect(await api(`/v1/computers/${id}/exec`).then((r) => r.json())).toEqual({ execs: [] });
    },
  );

  it.each([
    ["unknown runtime", { runtime: "python", source: "print(1)" }],
    ["missing source", { runtime: "shell" }],
    ["bad timeout", { runtime: "shell", source: "true", timeoutMs: -5 }],
    ["cwd outside the workspace", { runtime: "container", source: "true", cwd: "/etc" }],
    ["cwd escaping with ..", { runtime: "container", source: "true", cwd: "/workspace/../etc" }],
    ["env value not a string", { runtime: "container", source: "true", env: { A: 1 } }],
    ["env bad name", { runtime: "container", source: "true", env: { "A=B": "x" } }],
    ["stdin not a string", { runtime: "container", source: "true", stdin: 5 }],
  ])("%s → 400 EINVAL", async (_, body) => {
    const id = await computerWithFake();
    await expectError(await apiJson("POST", `/v1/computers/${id}/exec`, body), 400, "EINVAL");
  });

  it("404s on a missing computer and on unknown exec ids", async () => {
    await expectError(
      await apiJson("POST", `/v1/computers/${freshId()}/exec`, { runtime: "js", source: "" }),
      404,
      "ENOENT",
    );
    const id = await createComputer();
    await expectError(await api(`/v1/computers/${id}/exec/ex_123`), 404, "ENOENT");
    await expectError(await api(`/v1/computers/${id}/exec/ex_123`, { method: "DELETE" }), 404, "ENOENT");
  });

  it("a runtime that cannot be reached now is 503 with Retry-After and journals nothing", async () => {
    const id = await computerWithFake();
    const res = await exec(id, { source: "unavailable" });
    expect(res.headers.get("retry-after")).toBe("3");
    await expectError(res, 503, "EUNAVAILABLE");
    expect(await api(`/v1/computers/${id}/exec`).then((r) => r.json())).toEqual({ execs: [] });
  });

  it("caps the timeout per runtime and passes cwd, env and stdin through", async () => {
    const id = await computerWithFake();
    const result = await run(id, "out ok", {
      timeoutMs: 999_999,
      cwd: "src/app/",
      env: { GREETING: "hi" },
      stdin: "input",
    });
    const request = started.find((r) => r.id === result.id);
    expect(request).toMatchObject({
      timeoutMs: 120_000,
      cwd: "/workspace/src/app",
      env: { GREETING: "hi" },
      stdin: "input",
    });
  });

  it("a read-only token may list but not start", async () => {
    const id = await computerWithFake();
    const ro = await mintToken(id, "ro");
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/exec`, { runtime: "container", source: "out x" }, ro),
      403,
      "EFORBIDDEN",
    );
    expect((await api(`/v1/computers/${id}/exec`, { token: ro })).status).toBe(200);
  });
});

describe("exec results", () => {
  it("buffered: a non-zero exit is a 200 result with status failed", async () => {
    const id = await computerWithFake();
    const res = await exec(id, { source: "out hello\nerr oops\nexit 3" });
    expect(res.status).toBe(200);
    const result = (await res.json()) as Result;
    expect(res.headers.get("x-exec-id")).toBe(result.id);
    expect(result).toMatchObject({
      runtime: "container",
      status: "failed",
      exitCode: 3,
      stdout: "hello\n",
      stderr: "oops\n",
      truncated: false,
      sync: { status: "none", conflicts: [] },
      lastSeq: 1,
    });
    expect(result.id).toMatch(/^ex_[0-9a-f]{24}$/);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(await api(`/v1/computers/${id}/exec/${result.id}`).then((r) => r.json())).toEqual(result);
  });

  it("keeps the value a runtime returns", async () => {
    const id = await computerWithFake();
    expect(await run(id, 'value {"a":[1,2]}')).toMatchObject({
      status: "completed",
      exitCode: 0,
      value: { a: [1, 2] },
    });
  });

  it("SSE: output events in seq order while running, then exactly one exit", async () => {
    const id = await computerWithFake();
    const t0 = Date.now();
    const res = await exec(id, { source: "out one\nerr two\nsleep 600\nout three\nexit 0" }, true);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const frames = await readFrames(res);
    expect(frames.map((f) => f.event)).toEqual(["stdout", "stderr", "stdout", "exit"]);
    expect(frames.slice(0, 3).map((f) => dataOf<{ seq: number; data: string }>(f))).toEqual([
      { seq: 0, data: "one\n" },
      { seq: 1, data: "two\n" },
      { seq: 2, data: "three\n" },
    ]);
    expect(frames.slice(0, 3).map((f) => f.id)).toEqual(["0", "1", "2"]);
    const exit = dataOf<Result>(frames[3]);
    expect(exit).toMatchObject({
      id: res.headers.get("x-exec-id"),
      status: "completed",
      stdout: "one\nthree\n",
    });
    // The first piece arrived well before the exit (not buffered to the end).
    expect((frames[3]?.at ?? 0) - (frames[0]?.at ?? 0)).toBeGreaterThan(400);
    expect((frames[0]?.at ?? 0) - t0).toBeLessThan(frames[3]?.at ?? 0 - t0);
  });

  it("follow re-attaches to a running exec from any seq, and replays a finished one", async () => {
    const id = await computerWithFake();
    const live = await exec(id, { source: "out a\nout b\nsleep 500\nout c\nexit 0" }, true);
    const execId = live.headers.get("x-exec-id");
    const liveFrames = readFrames(live);
    const running = await api(`/v1/computers/${id}/exec/${execId}`).then((r) => r.json() as Promise<Result>);
    expect(running.status).toBe("running");
    const follow = await api(`/v1/computers/${id}/exec/${execId}?follow=1&after=0`, {
      headers: { Accept: "text/event-stream" },
    });
    const followed = await readFrames(follow);
    expect(followed.map((f) => `${f.event}:${f.id ?? ""}`)).toEqual(["stdout:1", "stdout:2", "exit:"]);
    expect((await liveFrames).length).toBe(4);
    const replay = await readFrames(
      await api(`/v1/computers/${id}/exec/${execId}?follow=1`, { headers: { "Last-Event-ID": "1" } }),
    );
    expect(replay.map((f) => f.event)).toEqual(["stdout", "exit"]);
    expect(dataOf<{ data: string }>(replay[0]).data).toBe("c\n");
    const all = await readFrames(await api(`/v1/computers/${id}/exec/${execId}?follow=1`));
    expect(all.map((f) => f.event)).toEqual(["stdout", "stdout", "stdout", "exit"]);
    await expectError(await api(`/v1/computers/${id}/exec/${execId}?follow=1&after=x`), 400, "EINVAL");
  });

  it("lists recent execs, newest first, with a limit", async () => {
    const id = await computerWithFake();
    const first = await run(id, "out 1");
    const second = await run(id, "out 2");
    const third = await run(id, "out 3");
    const { execs } = (await api(`/v1/computers/${id}/exec`).then((r) => r.json())) as { execs: Result[] };
    expect(execs.map((e) => e.id)).toEqual([third.id, second.id, first.id]);
    // Listed without output (GET /exec/:id has it), but with everything else.
    expect(execs[0]).toEqual({
      id: third.id,
      runtime: "container",
      status: "completed",
      exitCode: 0,
      truncated: false,
      durationMs: third.durationMs,
      sync: { status: "none", conflicts: [] },
      createdAt: expect.any(String),
      lastSeq: 0,
    });
    const limited = (await api(`/v1/computers/${id}/exec?limit=2`).then((r) => r.json())) as {
      execs: Result[];
    };
    expect(limited.execs.map((e) => e.id)).toEqual([third.id, second.id]);
  });

  it("DELETE kills a running exec; again, or on a finished one, answers its result (200)", async () => {
    const id = await computerWithFake();
    const live = await exec(id, { source: "out started\nhang" }, true);
    const execId = live.headers.get("x-exec-id");
    const frames = readFrames(live);
    const killed = await api(`/v1/computers/${id}/exec/${execId}`, { method: "DELETE" });
    expect(killed.status).toBe(200);
    expect(await killed.json()).toMatchObject({ id: execId, status: "killed", exitCode: null });
    expect((await frames).map((f) => f.event)).toEqual(["stdout", "exit"]);
    const again = await api(`/v1/computers/${id}/exec/${execId}`, { method: "DELETE" });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: "killed" });
    const done = await run(id, "exit 0");
    const finished = await api(`/v1/computers/${id}/exec/${done.id}`, { method: "DELETE" });
    expect(await finished.json()).toMatchObject({ status: "completed", exitCode: 0 });
  });

  it("an exec past its timeout ends with status timeout", async () => {
    const id = await computerWithFake();
    const result = await run(id, "out before\nhang", { timeoutMs: 200 });
    expect(result).toMatchObject({ status: "timeout", exitCode: null, stdout: "before\n" });
    expect(result.durationMs).toBeGreaterThanOrEqual(150);
  });

  it("keeps output up to the cap (1 MiB) and marks the result truncated; the stream is not capped", async () => {
    const id = await computerWithFake();
    const res = await exec(id, { source: "big 700000\nbig 700000\nout tail" }, true);
    const frames = await readFrames(res);
    const streamed = frames
      .filter((f) => f.event === "stdout")
      .reduce((n, f) => n + dataOf<{ data: string }>(f).data.length, 0);
    expect(streamed).toBe(1_400_005);
    const result = dataOf<Result>(frames.at(-1));
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(result.lastSeq).toBe(2);
  });
});

describe("exec journal across restarts", () => {
  it("an exec journaled as running with no live handle is failed; a container one keeps its sync pending", async () => {
    const id = await computerWithFake();
    await runInDurableObject(env.COMPUTER.getByName(id), (_, state) => {
      // What a DO that was evicted mid-exec leaves behind.
      const journal = new ExecJournal(state.storage.sql);
      journal.begin("ex_000000000000000000000001", "container", Date.now() - 1000);
      journal.append("ex_000000000000000000000001", { seq: 0, stream: "stdout", data: "partial\n" });
      journal.begin("ex_000000000000000000000002", "shell", Date.now() - 500);
    });
    const container = (await api(`/v1/computers/${id}/exec/ex_000000000000000000000001`).then((r) =>
      r.json(),
    )) as Result;
    expect(container).toMatchObject({
      status: "failed",
      exitCode: null,
      stdout: "partial\n",
      sync: { status: "pending" },
      error: { code: "EIO" },
    });
    const shell = (await api(`/v1/computers/${id}/exec/ex_000000000000000000000002`).then((r) =>
      r.json(),
    )) as Result;
    expect(shell).toMatchObject({ status: "failed", sync: { status: "none" } });
  });
});
