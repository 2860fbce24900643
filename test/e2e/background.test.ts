/**
 * Background processes through the real stack (wrangler dev + computerd host + FUSE +
 * bubblewrap): `detach: true` answers at once, the process keeps running and is listed, what
 * it writes reaches the Durable Object while it runs, DELETE kills it, and a container that
 * dies under it reports it `killed` with the reason instead of leaving it running forever.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { containerCapable } from "@computer/fleet/capabilities";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ComputerApi } from "./computer-api.ts";
import { daemonPid } from "./daemon-pid.ts";

let fleet: Fleet;

interface ExecState {
  id: string;
  status: string;
  detached?: boolean;
  stdout?: string;
  error?: { code: string; message: string };
}

/** Starts `source` as a background process of computer `api`. */
export async function startBackground(api: ComputerApi, source: string): Promise<ExecState> {
  const res = await fetch(api.url("/exec"), {
    method: "POST",
    headers: { ...api.auth(), "Content-Type": "application/json" },
    body: JSON.stringify({ runtime: "container", source, detach: true }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(202);
  return JSON.parse(text) as ExecState;
}

async function execState(api: ComputerApi, id: string): Promise<ExecState> {
  return (await (await fetch(api.url(`/exec/${id}`), { headers: api.auth() })).json()) as ExecState;
}

/** Polls `probe` until it returns a value, for up to `ms`. */
async function eventually<T>(probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!containerCapable)("background processes", () => {
  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: true });
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it("keeps running after the request, syncs while it runs, is listed and killed by DELETE", async () => {
    const api = new ComputerApi(fleet, "e2e-background");
    await api.create();
    const started = await startBackground(
      api,
      "echo started; i=0; while true; do echo tick $i > ticks.txt; i=$((i+1)); sleep 0.2; done",
    );
    expect(started).toMatchObject({ status: "running", detached: true });
    // Its writes reach the DO while it runs, not only at exit.
    const tick = await eventually(async () => {
      const file = await api.get("ticks.txt");
      return file.status === 200 && /^tick [1-9]/.test(file.text) ? file.text : undefined;
    });
    expect(tick).toMatch(/^tick \d+\n$/);
    // A foreground exec meanwhile runs normally.
    expect((await api.exec("cat ticks.txt")).stdout).toMatch(/^tick \d+\n$/);
    const listed = (await (await fetch(api.url("/exec"), { headers: api.auth() })).json()) as {
      execs: ExecState[];
    };
    expect(listed.execs.find((e) => e.id === started.id)).toMatchObject({
      status: "running",
      detached: true,
    });
    expect((await execState(api, started.id)).stdout).toBe("started\n");
    const killed = await fetch(api.url(`/exec/${started.id}`), { method: "DELETE", headers: api.auth() });
    expect(((await killed.json()) as ExecState).status).toBe("killed");
    // Nothing writes any more.
    const after = (await api.get("ticks.txt")).text;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await api.exec("cat ticks.txt")).stdout).toBe(after);
  }, 120_000);

  it("a container that dies reports its background processes killed, with the reason", async () => {
    const id = "e2e-background-crash";
    const api = new ComputerApi(fleet, id);
    await api.create();
    const started = await startBackground(api, "sleep 611");
    process.kill(daemonPid(fleet, id), "SIGKILL");
    const ended = await eventually(async () => {
      const state = await execState(api, started.id);
      return state.status === "running" ? undefined : state;
    });
    expect(ended.status).toBe("killed");
    expect(ended.error?.message).toMatch(/container stopped/);
    // The next exec relaunches the container.
    expect((await api.exec("echo next")).stdout).toBe("next\n");
  }, 120_000);
});
