/**
 * The Durable Object backends: the bench Worker (../workerd) under plain workerd ("workerd")
 * or under wrangler dev ("wrangler"), each repetition in a fresh SQLite-backed Durable Object.
 *
 * Timing: in production workerd only advances Date.now/performance.now across I/O, and
 * locally both tick in whole milliseconds, so the figure is taken from OUTSIDE: the wall time
 * of the `run` request minus the median of empty round trips (`noop`, same object, just
 * before). It therefore includes what the object does after the scenario's code returns and
 * before the response leaves — for writes, committing the implicit SQLite transaction. The
 * object's own performance.now() delta (`insideMs`, code only) is reported beside it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProcessGroup } from "@computer/fleet/process-group";
import type { ClockReport, FinishReport, RunReport } from "../workerd/worker.ts";
import type { BenchSize, Scenario } from "./scenarios.ts";
import { summarize } from "./stats.ts";
import type { Sample, Target } from "./target.ts";
import { type Launched, launchWorkerd, launchWranglerDev } from "./workerd-launch.ts";

/** Empty round trips measured before each run; their median is the baseline. */
const BASELINE_TRIPS = 5;

/** A vfs inside a Durable Object, under plain workerd or wrangler dev. */
export function workerdTarget(via: "workerd" | "wrangler"): Target {
  const runId = Date.now().toString(36);
  let group: ProcessGroup | undefined;
  let launched: Launched | undefined;
  let workDir: string | undefined;
  let clock: number | undefined;
  let runtime: string | undefined;

  async function call<T>(object: string, step: string, body?: unknown): Promise<{ value: T; ms: number }> {
    if (!launched) throw new Error(`${via} target not started`);
    const t0 = performance.now();
    const res = await fetch(`${launched.url}/do/${object}/${step}`, {
      method: "POST",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (!res.ok) {
      throw new Error(`${via} ${step} failed (${res.status}): ${text}\n${launched.process.recentOutput()}`);
    }
    return { value: JSON.parse(text) as T, ms };
  }

  return {
    id: via,
    name: via === "workerd" ? "Durable Object (plain workerd)" : "Durable Object (wrangler dev)",
    timing: `outside: run request wall time minus the median of ${BASELINE_TRIPS} empty round trips`,
    // How far the object's clock moved over 16 MiB of synchronous hashing (0: frozen, as in production).
    notes: () => ({ runtime, clockAdvancedMsOver16MiBHashing: clock }),
    async start() {
      workDir = mkdtempSync(join(tmpdir(), `vfs-bench-${via}-`));
      group = new ProcessGroup();
      launched =
        via === "workerd" ? await launchWorkerd(group, workDir) : await launchWranglerDev(group, workDir);
      runtime = launched.runtime;
      clock = (await call<ClockReport>(`${runId}-clock`, "clock")).value.advancedMs;
    },
    async runOnce(scenario: Scenario, size: BenchSize, rep: number): Promise<Sample> {
      const object = `${runId}-${scenario.id}-${rep}`;
      await call<null>(object, "setup", { scenario: scenario.id, size });
      const trips: number[] = [];
      for (let i = 0; i < BASELINE_TRIPS; i++) trips.push((await call<null>(object, "noop")).ms);
      const run = await call<RunReport>(object, "run");
      const finish = await call<FinishReport>(object, "finish");
      const baselineMs = summarize(trips).median;
      return {
        ms: Math.max(0, run.ms - baselineMs),
        insideMs: run.value.insideMs,
        baselineMs,
        sql: run.value.sql,
        dbBytes: finish.value.dbBytes,
      };
    },
    async stop() {
      await group?.stop();
      group = undefined;
      launched = undefined;
      if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
      workDir = undefined;
    },
  };
}
