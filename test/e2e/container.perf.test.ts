/**
 * Timings of the container runtime through the real stack (local Worker + computerd host +
 * FUSE + bubblewrap), printed for the report: the exec round trip of `true` (p50 over 50
 * runs) and the fence after a command that wrote 1,000 and 10,000 small files, seen from
 * outside (the SSE `exit` event after the command's last output) and inside (computerd's
 * fence event). Bounds are generous: they catch a broken upload stream, not noise. And the
 * counters the benchmarks put beside the times: the Durable Object's for an exec
 * (`X-Exec-Metrics`, also on the exec's GET) and computerd's totals on its fence events.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import type { Computer } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  containerArrivals,
  createComputerOn,
  entryNames,
  expectSynced,
  fenceEvents,
  runContainer,
} from "./fleet-computer.ts";

const containerCapable = canRun("the container runtime timings", containerMissing());

const ID = "e2e-perf";
let fleet: Fleet;
let api: Computer;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

/** Writes `n` files in a fresh directory, then prints "done"; returns the fence seen from outside and inside. */
async function writeMany(n: number): Promise<{ outsideMs: number; insideMs: number; commandMs: number }> {
  const dir = `w${n}`;
  const started = performance.now();
  const events = await containerArrivals(
    api,
    `mkdir -p ${dir} && cd ${dir} && i=0; while [ $i -lt ${n} ]; do echo $i > f$i; i=$((i+1)); done; echo done`,
    600_000,
  );
  const done = events.find((e) => e.type === "stdout" && e.data.includes("done"));
  const exit = events.find((e) => e.type === "exit");
  if (!done || exit?.type !== "exit") throw new Error(`unexpected events: ${JSON.stringify(events)}`);
  expect(exit.result).toMatchObject({ status: "completed", sync: { status: "complete" } });
  const fence = fenceEvents(fleet, ID).at(-1);
  expect((await entryNames(api, dir)).size).toBe(n);
  return { outsideMs: exit.at - done.at, insideMs: fence?.ms ?? Number.NaN, commandMs: done.at - started };
}

describe.skipIf(!containerCapable)("container runtime timings", () => {
  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: true });
    api = await createComputerOn(fleet, ID);
    expectSynced(await runContainer(api, "true"));
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it("exec round trip of `true` through the API, p50 over 50 runs", async () => {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      expectSynced(await runContainer(api, "true"));
      times.push(performance.now() - started);
    }
    const p50 = percentile(times, 50);
    console.log(
      `container exec round trip of true: p50 ${p50.toFixed(1)} ms, p90 ${percentile(times, 90).toFixed(1)} ms`,
    );
    expect(p50).toBeLessThan(1000);
  }, 300_000);

  it("an exec's counters: the DO's SQL and sync round trips, and computerd's FUSE, SQL and RPC totals", async () => {
    type Totals = {
      fuse: Record<string, number>;
      sql: { statements: number };
      rpc: { calls: Record<string, number>; changes: number };
    };
    const totals = () => (fenceEvents(fleet, ID).at(-1) as { counters?: Totals } | undefined)?.counters;
    const before = totals();
    const result = await api.exec.run({
      runtime: "container",
      source: "mkdir -p counted && cd counted && for i in $(seq 1 50); do echo $i > f$i; done",
    });
    expectSynced(result);
    expect(result.metrics.doSql).toBeGreaterThan(0);
    expect(result.metrics.doSyncChanges).toBeGreaterThanOrEqual(50);
    expect(result.metrics["doSync.applyBatch"]).toBeGreaterThanOrEqual(1);
    expect(await api.exec.metrics(result.id)).toEqual(result.metrics);
    // The DO's time per step, which add up to no more than the exec's own duration.
    const steps = ["doConnectMs", "doPushMs", "doStartMs", "doRunMs", "doFenceMs"];
    for (const step of steps) expect(result.metrics[step], step).toBeGreaterThanOrEqual(0);
    const stepSum = steps.reduce((sum, step) => sum + (result.metrics[step] ?? 0), 0);
    expect(stepSum).toBeLessThanOrEqual(result.durationMs + 1);
    const after = totals();
    if (!before || !after)
      throw new Error(`no counters on computerd's fence events: ${fleet.hostOutput().slice(-2000)}`);
    // The FUSE loop answers a create where JS's answer is certain (computerd/docs/mount.md).
    const creates = (t: Totals) => (t.fuse.create ?? 0) + (t.fuse["create (loop)"] ?? 0);
    expect(creates(after) - creates(before)).toBeGreaterThanOrEqual(50);
    expect(after.sql.statements).toBeGreaterThan(before.sql.statements);
    expect((after.rpc.calls.applyBatch ?? 0) - (before.rpc.calls.applyBatch ?? 0)).toBeGreaterThanOrEqual(1);
    expect(after.rpc.changes - before.rpc.changes).toBeGreaterThanOrEqual(50);
  }, 180_000);

  it("fence after writing 1,000 files", async () => {
    const t = await writeMany(1000);
    console.log(
      `1,000 files: command ${t.commandMs.toFixed(0)} ms, fence ${t.insideMs.toFixed(0)} ms (computerd), exit after last output ${t.outsideMs.toFixed(0)} ms (API)`,
    );
    expect(t.outsideMs).toBeLessThan(10_000);
  }, 300_000);

  it("fence after writing 10,000 files", async () => {
    const t = await writeMany(10_000);
    console.log(
      `10,000 files: command ${t.commandMs.toFixed(0)} ms, fence ${t.insideMs.toFixed(0)} ms (computerd), exit after last output ${t.outsideMs.toFixed(0)} ms (API)`,
    );
    expect(t.outsideMs).toBeLessThan(60_000);
  }, 900_000);
});
