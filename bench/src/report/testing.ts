/**
 * Synthetic fs-bench documents for the reports' and the gate's tests: every field a real run
 * writes, with the samples given. `syntheticRun({ scenarios: { create: { computerd: [..],
 * tmpfs: [..], disk: [..] } }, fleet: { "fence-1000": [..] } })`.
 */
import { FS_BENCH_SCHEMA, type FsBenchDocument, type ScenarioResult } from "../fs-bench/document.ts";
import { FLEET_SCENARIOS } from "../fs-bench/fleet-scenarios.ts";
import { TARGET_VS_DISK, verdictOf } from "../fs-bench/report.ts";
import type { ScenarioRun, TargetRun } from "../fs-bench/runner.ts";
import { SCENARIOS } from "../fs-bench/scenarios.ts";
import type { TargetId } from "../fs-bench/target.ts";
import { summarize } from "../stats.ts";

/** Samples per target (a string: that target failed with this message). */
export type SyntheticScenario = Partial<Record<TargetId, number[] | string>>;

export interface SyntheticSpec {
  startedAt?: string;
  commit?: string;
  scenarios?: Record<string, SyntheticScenario>;
  fleet?: Record<string, number[] | string>;
}

function targetRun(target: TargetId, value: number[] | string): TargetRun {
  if (typeof value === "string") return { target, samples: [], error: value };
  const samples = value.map((ms, i) => ({
    ms,
    wallMs: ms + 3,
    settleMs: 1,
    ...(target === "computerd"
      ? {
          timed: { fuse: { lookup: 10 + i, create: 5 }, sql: { statements: 0, operations: 0, commits: 0 } },
          withFence: {
            fuse: { lookup: 10 + i, create: 5 },
            sql: { statements: 40, operations: 20, commits: 1 },
            storedBytes: 4096,
            cpuMs: 120 + i,
          },
        }
      : {}),
  }));
  return { target, samples, summary: summarize(value), settle: summarize(value.map(() => 1)) };
}

function scenarioResult(id: string, spec: SyntheticScenario): ScenarioResult {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario) throw new Error(`no shell scenario ${id}`);
  const runs = (Object.entries(spec) as [TargetId, number[] | string][]).map(([t, v]) => targetRun(t, v));
  const phases = { prepare: 0, setup: 0, run: 0, settle: 0, check: 0, cleanup: 0 };
  const run: ScenarioRun = { scenario, runs, orders: [], elapsedMs: 0, phases };
  return {
    name: scenario.name,
    id,
    kind: scenario.kind,
    run: scenario.run,
    orders: [],
    runs,
    verdict: verdictOf(run),
  };
}

/** A complete document with the samples of `spec`. */
export function syntheticRun(spec: SyntheticSpec): FsBenchDocument {
  const startedAt = spec.startedAt ?? "2026-12-01T02:00:00.000Z";
  return {
    schema: FS_BENCH_SCHEMA,
    startedAt,
    finishedAt: startedAt,
    source: {
      commit: spec.commit ?? "0".repeat(40),
      dirty: false,
      vfsSrcSha256: { start: "a", end: "a" },
      computerdSrcSha256: { start: "b", end: "b" },
    },
    host: { kernel: "6.1.0-test", cpuCount: 2, cpuModel: "synthetic", benchNode: "v24.0.0" },
    options: {
      size: "full",
      reps: 5,
      warmup: 1,
      budgetS: 60,
      targets: ["computerd", "tmpfs", "disk"],
      mountVia: "driver",
      diskDir: "/var/tmp",
      tmpfsDir: "/dev/shm",
      scenarios: Object.keys(spec.scenarios ?? {}),
      fleet: Object.keys(spec.fleet ?? {}),
    },
    targets: [],
    targetsVsDisk: TARGET_VS_DISK,
    results: Object.entries(spec.scenarios ?? {}).map(([id, s]) => scenarioResult(id, s)),
    ...(spec.fleet
      ? {
          fleet: {
            runs: Object.entries(spec.fleet).map(([id, value]) => {
              const scenario = FLEET_SCENARIOS.find((s) => s.id === id);
              if (!scenario) throw new Error(`no fleet scenario ${id}`);
              const base = { name: scenario.name, id, timed: scenario.timed, targetMs: scenario.targetMs };
              const spent = { elapsedMs: 0, prepareMs: 0 };
              if (typeof value === "string")
                return { ...base, ...spent, samples: [], restarts: 0, error: value };
              return {
                ...base,
                ...(scenario.baseline ? { baseline: scenario.baseline } : {}),
                ...(scenario.limitVsDisk === undefined ? {} : { limitVsDisk: scenario.limitVsDisk }),
                samples: value.map((ms) => ({ ms, detail: { batches: 3 } })),
                summary: summarize(value),
                restarts: 0,
                ...spent,
              };
            }),
          },
        }
      : {}),
  };
}
