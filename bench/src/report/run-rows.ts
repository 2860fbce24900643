/**
 * One fs-bench document as the rows every report shows (Markdown, SVG, HTML, compare): per
 * shell scenario the three targets' samples and medians, the ratios of the mount to tmpfs and
 * disk and BENCH.md's target; per fleet scenario its samples and its target in ms; and the
 * counters beside the times (FUSE requests by type, SQL statements, RPC round trips, bytes).
 */
import type { FsBenchDocument, ScenarioResult } from "../fs-bench/document.ts";
import type { Sample } from "../fs-bench/runner.ts";
import { TARGET_IDS, type TargetId } from "../fs-bench/target.ts";
import { median } from "./statistics.ts";

/** Where a row's times come from: a target of the shell scenarios, or the local fleet. */
export type Place = TargetId | "fleet";

/** The samples of one place, in ms, with their median; `error` when it failed there. */
export interface PlaceTimes {
  samples: number[];
  median?: number;
  error?: string;
}

/** One scenario of a run. */
export interface ScenarioRow {
  id: string;
  name: string;
  group: "fs" | "fleet";
  times: Partial<Record<Place, PlaceTimes>>;
  /** The mount's (or the fleet's) median over tmpfs's and disk's of the same run. */
  vsTmpfs?: number;
  vsDisk?: number;
  /** BENCH.md's target: at most this ratio to disk, or (fleet) at most this many ms. */
  limitVsDisk?: number;
  limitMs?: number;
  met?: boolean;
  /** Medians of the counters over the repetitions (names below). */
  counters: Record<string, number>;
}

/** The places of the shell scenarios, in report order. */
export const FS_PLACES: readonly TargetId[] = TARGET_IDS;

function times(samples: number[], error?: string): PlaceTimes {
  const m = median(samples);
  return { samples, ...(m === undefined ? {} : { median: m }), ...(error ? { error } : {}) };
}

/** Medians over the samples of each named counter (samples without it are left out). */
function counterMedians(perSample: Record<string, number>[]): Record<string, number> {
  const names = [...new Set(perSample.flatMap((c) => Object.keys(c)))].sort();
  const out: Record<string, number> = {};
  for (const name of names) {
    const m = median(perSample.map((c) => c[name]).filter((v): v is number => Number.isFinite(v)));
    if (m !== undefined) out[name] = m;
  }
  return out;
}

/** The counters of one mount sample: `fuse.<op>` and `fuse` (total), `sql`, `storedBytes`, `cpuMs`. */
export function sampleCounters(sample: Sample): Record<string, number> {
  const out: Record<string, number> = {};
  if (sample.timed) {
    let total = 0;
    for (const [op, n] of Object.entries(sample.timed.fuse)) {
      out[`fuse.${op}`] = n;
      total += n;
    }
    out.fuse = total;
  }
  if (sample.withFence) {
    out.sql = sample.withFence.sql.statements;
    if (sample.withFence.storedBytes !== undefined) out.storedBytes = sample.withFence.storedBytes;
    if (sample.withFence.cpuMs !== undefined) out.cpuMs = sample.withFence.cpuMs;
  }
  return out;
}

function fsRow(result: ScenarioResult): ScenarioRow {
  const row: ScenarioRow = { id: result.id, name: result.name, group: "fs", times: {}, counters: {} };
  for (const run of result.runs) {
    row.times[run.target] = times(
      run.samples.map((s) => s.ms),
      run.error ?? result.error,
    );
    if (run.target === "computerd") row.counters = counterMedians(run.samples.map(sampleCounters));
  }
  const { vsTmpfs, vsDisk, limitVsDisk, met } = result.verdict;
  Object.assign(row, {
    ...(vsTmpfs === undefined ? {} : { vsTmpfs }),
    ...(vsDisk === undefined ? {} : { vsDisk }),
    limitVsDisk,
    ...(met === undefined ? {} : { met }),
  });
  return row;
}

/** The rows of `doc`: shell scenarios first, then the fleet's. */
export function runRows(doc: FsBenchDocument): ScenarioRow[] {
  const rows = doc.results.map(fsRow);
  const disk = new Map(rows.map((r) => [r.id, r.times.disk?.median]));
  const tmpfs = new Map(rows.map((r) => [r.id, r.times.tmpfs?.median]));
  for (const run of doc.fleet?.runs ?? []) {
    const fleet = times(
      run.samples.map((s) => s.ms),
      run.error,
    );
    const row: ScenarioRow = {
      id: run.id,
      name: run.name,
      group: "fleet",
      times: { fleet },
      ...(run.targetMs === undefined ? {} : { limitMs: run.targetMs }),
      counters: counterMedians(run.samples.map((s) => s.detail)),
    };
    // A fleet scenario that repeats a shell scenario on the whole product (the npm install)
    // names it: its ratios are to that scenario's tmpfs and disk of the same run.
    const base = run.baseline;
    const [d, t] = base ? [disk.get(base), tmpfs.get(base)] : [undefined, undefined];
    if (fleet.median !== undefined) {
      if (d) row.vsDisk = fleet.median / d;
      if (t) row.vsTmpfs = fleet.median / t;
      if (run.limitVsDisk !== undefined) row.limitVsDisk = run.limitVsDisk;
      if (row.limitVsDisk !== undefined && row.vsDisk !== undefined) row.met = row.vsDisk <= row.limitVsDisk;
      else if (run.targetMs !== undefined) row.met = fleet.median <= run.targetMs;
    }
    rows.push(row);
  }
  return rows;
}

/** The places a row has times for, in report order. */
export function placesOf(row: ScenarioRow): Place[] {
  return (["computerd", "tmpfs", "disk", "fleet"] as const).filter((p) => row.times[p] !== undefined);
}
