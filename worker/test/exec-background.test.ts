/**
 * Background processes (`detach: true`) over the fake in-DO runtime: answered 202 while they
 * run, listed and re-attachable, no timeout unless asked, killed by DELETE, bounded per
 * computer, and refused for the runtimes that cannot outlive a request.
 */
import { describe, expect, it } from "vitest";
import { MAX_BACKGROUND_EXECS } from "../src/exec/exec-request.ts";
import { installFakeRuntime, started } from "./fake-runtime.ts";
import { api, apiJson, createComputer, expectError } from "./helpers.ts";
import { dataOf, readFrames } from "./sse.ts";

interface Result {
  id: string;
  status: string;
  stdout: string;
  detached?: boolean;
  error?: { code: string; message: string };
}

async function computerWithFake(): Promise<string> {
  const id = await createComputer();
  await installFakeRuntime(id);
  return id;
}

async function detach(id: string, source: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return apiJson("POST", `/v1/computers/${id}/exec`, {
    runtime: "container",
    source,
    detach: true,
    ...extra,
  });
}

async function waitFor(id: string, execId: string, status: string): Promise<Result> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = (await (await api(`/v1/computers/${id}/exec/${execId}`)).json()) as Result;
    if (result.status === status || Date.now() > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("background execs", () => {
  it("answers 202 at once, keeps running, is listed, re-attachable and killed by DELETE", async () => {
    const id = await computerWithFake();
    const res = await detach(id, "out serving\nhang");
    expect(res.status).toBe(202);
    const running = (await res.json()) as Result;
    expect(running).toMatchObject({ status: "running", detached: true });
    expect(res.headers.get("x-exec-id")).toBe(running.id);
    const request = started.find((r) => r.id === running.id);
    expect(request).toMatchObject({ detached: true, timeoutMs: undefined });

    const listed = (await (await api(`/v1/computers/${id}/exec`)).json()) as { execs: Result[] };
    expect(listed.execs.find((e) => e.id === running.id)).toMatchObject({
      status: "running",
      detached: true,
    });

    const follow = await api(`/v1/computers/${id}/exec/${running.id}?follow=1`, {
      headers: { Accept: "text/event-stream" },
    });
    const killed = api(`/v1/computers/${id}/exec/${running.id}`, { method: "DELETE" });
    const frames = await readFrames(follow);
    expect(frames.map((f) => f.event)).toEqual(["stdout", "exit"]);
    expect(dataOf<{ data: string }>(frames[0]).data).toBe("serving\n");
    expect(dataOf<Result>(frames[1])).toMatchObject({ status: "killed", detached: true });
    expect(((await (await killed).json()) as Result).status).toBe("killed");
  });

  it("a background exec's own timeout applies when it asks for one", async () => {
    const id = await computerWithFake();
    const res = await detach(id, "hang", { timeoutMs: 100 });
    const { id: execId } = (await res.json()) as Result;
    expect(started.find((r) => r.id === execId)?.timeoutMs).toBe(100);
    expect((await waitFor(id, execId, "timeout")).status).toBe("timeout");
  });

  it(`refuses background process ${MAX_BACKGROUND_EXECS + 1} with 409 EBUSY, and takes one again after a kill`, async () => {
    const id = await computerWithFake();
    const ids: string[] = [];
    for (let i = 0; i < MAX_BACKGROUND_EXECS; i++) {
      const res = await detach(id, "hang");
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as Result).id);
    }
    const refused = await expectError(await detach(id, "hang"), 409, "EBUSY");
    expect(refused.error.message).toContain(String(MAX_BACKGROUND_EXECS));
    // Foreground execs are not counted.
    const fg = await apiJson("POST", `/v1/computers/${id}/exec`, { runtime: "container", source: "exit 0" });
    expect(fg.status).toBe(200);
    await (await api(`/v1/computers/${id}/exec/${ids[0]}`, { method: "DELETE" })).body?.cancel();
    expect((await detach(id, "hang")).status).toBe(202);
  });

  it.each(["shell", "js"])("detach with the %s runtime → 400 EINVAL", async (runtime) => {
    const id = await computerWithFake();
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/exec`, { runtime, source: "true", detach: true }),
      400,
      "EINVAL",
    );
  });

  it("detach that is not a boolean → 400 EINVAL", async () => {
    const id = await computerWithFake();
    await expectError(await detach(id, "hang", { detach: "yes" }), 400, "EINVAL");
  });
});
