/**
 * The benchmark driver: for each backend, start it, run every scenario's warm-ups and timed
 * repetitions (each in a fresh target), stop it. A backend that fails is recorded and the
 * others still run.
 */
import type { SqlCounts } from "./counting-sql.ts";
import type { BenchOptions } from "./options.ts";
import { scenarioById } from "./scenarios.ts";
import { type Summary, summarize } from "./stats.ts";
import type { BackendId, Sample, Target } from "./target.ts";

/** All repetitions of one scenario on one backend. */
export interface ScenarioResult {
  scenario: string;
  label: string;
  unit: string;
  /** Operations per run (for ops/s) and payload bytes per run. */
  ops: number;
  bytes: number;
  backend: BackendId;
  samplesMs: number[];
  summary: Summary;
  /** Operations per second at the median time (null when the median is 0, below the timer's reach). */
  opsPerSec: number | null;
  /** SQL counts of the first timed repetition; `sqlStable` says whether every repetition matched. */
  sql?: SqlCounts;
  sqlStable?: boolean;
  dbBytes?: number;
  /** Workerd only: the object's own timings and the subtracted round-trip baselines. */
  insideMs?: number[];
  baselineMs?: number[];
}

/** How one backend went. */
export interface BackendReport {
  id: BackendId;
  name: string;
  timing: string;
  /** Set when the backend failed; its results stop where it failed. */
  error?: string;
  /** Facts the backend reported about itself (Target.notes). */
  notes?: Record<string, number | string | undefined>;
}

function sameCounts(a: SqlCounts | undefined, b: SqlCounts | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function collect(target: Target, options: BenchOptions, id: string, samples: Sample[]): ScenarioResult {
  const scenario = scenarioById(id);
  const ms = samples.map((s) => s.ms);
  const summary = summarize(ms);
  const ops = scenario.ops(options.size);
  const first = samples[0];
  const result: ScenarioResult = {
    scenario: id,
    label: scenario.label(options.size),
    unit: scenario.unit,
    ops,
    bytes: scenario.bytes(options.size),
    backend: target.id,
    samplesMs: ms,
    summary,
    opsPerSec: summary.median > 0 ? (ops * 1000) / summary.median : null,
  };
  if (first?.sql) {
    result.sql = first.sql;
    result.sqlStable = samples.every((s) => sameCounts(s.sql, first.sql));
  }
  if (first?.dbBytes !== undefined) result.dbBytes = first.dbBytes;
  if (first?.insideMs !== undefined) result.insideMs = samples.map((s) => s.insideMs ?? Number.NaN);
  if (first?.baselineMs !== undefined) result.baselineMs = samples.map((s) => s.baselineMs ?? Number.NaN);
  return result;
}

function progress(message: string): void {
  process.stderr.write(`vfs-bench: ${message}\n`);
}

/** Runs every selected scenario on `target`, appending to `results`; returns the backend's report. */
export async function runTarget(
  target: Target,
  options: BenchOptions,
  results: ScenarioResult[],
): Promise<BackendReport> {
  const report: BackendReport = { id: target.id, name: target.name, timing: target.timing };
  try {
    progress(`starting ${target.name}`);
    await target.start();
    for (const id of options.scenarios) {
      const scenario = scenarioById(id);
      for (let w = 0; w < options.warmup; w++) await target.runOnce(scenario, options.size, -1 - w);
      const samples: Sample[] = [];
      for (let rep = 0; rep < options.reps; rep++)
        samples.push(await target.runOnce(scenario, options.size, rep));
      const result = collect(target, options, id, samples);
      results.push(result);
      progress(
        `${target.id.padEnd(7)} ${result.label.padEnd(38)} median ${result.summary.median.toFixed(2)} ms`,
      );
    }
  } catch (err) {
    report.error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    progress(`${target.name} failed: ${report.error}`);
  } finally {
    await target.stop();
    if (target.notes) report.notes = target.notes();
  }
  return report;
}
