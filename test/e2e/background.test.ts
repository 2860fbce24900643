/**
 * Background processes through the real stack (local Worker + computerd host + FUSE +
 * bubblewrap): `detach: true` answers at once, the process keeps running and is listed, what
 * it writes reaches the Durable Object while it runs, DELETE kills it, and a container that
 * dies under it reports it `killed` with the reason instead of leaving it running forever.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import { type Computer, ComputerError, type ExecResult } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daemonPid } from "./daemon-pid.ts";
import { eventually } from "./eventually.ts";
import { createComputerOn, runContainer } from "./fleet-computer.ts";

const containerCapable = canRun("background processes in the container", containerMissing());

let fleet: Fleet;

/** Starts `source` as a background process: answered at once, running. */
export async function startBackground(api: Computer, source: string): Promise<ExecResult> {
  return api.exec.run({ runtime: "container", source, detach: true });
}

/** The file's text, or undefined while it does not exist. */
async function textOf(api: Computer, path: string): Promise<string | undefined> {
  try {
    return await api.files.readText(path);
  } catch (err) {
    if (err instanceof ComputerError && err.code === "ENOENT") return undefined;
    throw err;
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
    const api = await createComputerOn(fleet, "e2e-background");
    const started = await startBackground(
      api,
      "echo started; i=0; while true; do echo tick $i > ticks.txt; i=$((i+1)); sleep 0.2; done",
    );
    expect(started).toMatchObject({ status: "running", detached: true });
    // Its writes reach the DO while it runs, not only at exit.
    const tick = await eventually(async () => {
      const text = await textOf(api, "ticks.txt");
      return text !== undefined && /^tick [1-9]/.test(text) ? text : undefined;
    });
    expect(tick).toMatch(/^tick \d+\n$/);
    // A foreground exec meanwhile runs normally.
    expect((await runContainer(api, "cat ticks.txt")).stdout).toMatch(/^tick \d+\n$/);
    const listed = await api.exec.list();
    expect(listed.find((e) => e.id === started.id)).toMatchObject({
      status: "running",
      detached: true,
    });
    expect((await api.exec.get(started.id)).stdout).toBe("started\n");
    expect((await api.exec.kill(started.id)).status).toBe("killed");
    // Nothing writes any more.
    const after = await api.files.readText("ticks.txt");
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await runContainer(api, "cat ticks.txt")).stdout).toBe(after);
  }, 120_000);

  it("a file rewritten faster than uploads settle still reaches the DO, again and again, while it runs", async () => {
    const api = await createComputerOn(fleet, "e2e-background-log");
    // Rewritten every ~20 ms: its change is never 100 ms old (the upload's settle), so only
    // the upload's bound on the wait (UPLOAD_MAX_LAG_MS) sends it before the writer stops.
    const started = await startBackground(
      api,
      "i=0; while true; do echo tick $i > progress.txt; i=$((i+1)); sleep 0.02; done",
    );
    const tickOf = async (): Promise<number | undefined> => {
      const match = /^tick (\d+)\n$/.exec((await textOf(api, "progress.txt")) ?? "");
      return match ? Number(match[1]) : undefined;
    };
    const first = await eventually(tickOf);
    const later = await eventually(async () => {
      const tick = await tickOf();
      return tick !== undefined && tick > first ? tick : undefined;
    });
    expect(later).toBeGreaterThan(first);
    expect((await api.exec.get(started.id)).status).toBe("running");
    expect((await api.exec.kill(started.id)).status).toBe("killed");
  }, 120_000);

  it("a container that dies reports its background processes killed, with the reason", async () => {
    const id = "e2e-background-crash";
    const api = await createComputerOn(fleet, id);
    const started = await startBackground(api, "sleep 611");
    process.kill(daemonPid(fleet, id), "SIGKILL");
    const ended = await eventually(async () => {
      const state = await api.exec.get(started.id);
      return state.status === "running" ? undefined : state;
    });
    expect(ended.status).toBe("killed");
    expect(ended.error?.message).toMatch(/container stopped/);
    // The next exec relaunches the container.
    expect((await runContainer(api, "echo next")).stdout).toBe("next\n");
  }, 120_000);
});
