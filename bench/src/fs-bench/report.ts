/**
 * fs-bench's two outputs: the table for people (per scenario, one row per target with median,
 * p95, min, max and the ratios to tmpfs and disk; the mount's row also carries its counters,
 * the reference line and the verdict against our target) and the JSON document for machines.
 */

import { formatMs, formatRatio, renderTable } from "../table-format.ts";
import type { FleetScenario } from "./fleet-scenarios.ts";
import { peerVsDisk, REFERENCE, type ReferenceLine } from "./reference.ts";
import type { ScenarioRun, TargetRun } from "./runner.ts";
import type { ScenarioKind } from "./scenarios.ts";
import { fuseTotal, type MountCounters, TARGET_IDS, type TargetId } from "./target.ts";

/** BENCH.md's targets: the mount's median over the disk's, at most this. */
export const TARGET_VS_DISK: Record<ScenarioKind, number> = { metadata: 1, bulk: 3 };

/** One scenario's comparison, as recorded in the JSON and shown in the table. */
export interface Verdict {
  vsTmpfs?: number;
  vsDisk?: number;
  limitVsDisk: number;
  /** Undefined when the mount or the disk has no result. */
  met?: boolean;
  /** (ours / disk) / (peer / disk): below 1 is better than the reference daemon. */
  vsPeer?: number;
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function ok(run: TargetRun | undefined): TargetRun | undefined {
  return run && !run.error && run.summary ? run : undefined;
}

/** The comparison of the mount with the baselines and the reference for one scenario. */
export function verdictOf(scenario: ScenarioRun): Verdict {
  const by = (id: TargetId) => ok(scenario.runs.find((r) => r.target === id))?.summary?.median;
  const [ours, tmpfs, disk] = [by("computerd"), by("tmpfs"), by("disk")];
  const limitVsDisk = TARGET_VS_DISK[scenario.scenario.kind];
  const verdict: Verdict = { limitVsDisk };
  if (ours === undefined) return verdict;
  if (tmpfs) verdict.vsTmpfs = ours / tmpfs;
  if (disk) {
    verdict.vsDisk = ours / disk;
    verdict.met = verdict.vsDisk <= limitVsDisk;
    const ref = REFERENCE[scenario.scenario.name];
    if (ref) verdict.vsPeer = verdict.vsDisk / peerVsDisk(ref);
  }
  return verdict;
}

/** Median FUSE op total and SQL statements over the repetitions that have counters. */
export function counterMedians(run: TargetRun): { fuseOps?: number; sqlStatements?: number } {
  const timed = run.samples.map((s) => s.timed).filter((c): c is MountCounters => c !== undefined);
  const fenced = run.samples.map((s) => s.withFence).filter((c): c is MountCounters => c !== undefined);
  const fuseOps = median(timed.map(fuseTotal));
  const sqlStatements = median(fenced.map((c) => c.sql.statements));
  return {
    ...(fuseOps === undefined ? {} : { fuseOps }),
    ...(sqlStatements === undefined ? {} : { sqlStatements }),
  };
}

function refCells(ref: ReferenceLine | undefined): string[] {
  if (!ref) return ["-", "-"];
  return [formatMs(ref.peerMs), formatRatio(ref.peerMs, ref.peerDiskMs)];
}

function verdictCell(v: Verdict): string {
  if (v.met === undefined) return "-";
  return `${v.met ? "ok" : "MISS"} (<=${v.limitVsDisk}x)`;
}

/** The table for people. */
export function formatFsReport(scenarios: readonly ScenarioRun[], fleet: readonly FleetScenario[]): string {
  const header = [
    "scenario",
    "target",
    "median",
    "p95",
    "min",
    "max",
    "x tmpfs",
    "x disk",
    "settle",
    "FUSE ops",
    "SQL",
    "peer ms",
    "peer x disk",
    "x peer",
    "target (x disk)",
  ];
  const rows: string[][] = [];
  const failures: string[] = [];
  for (const scenario of scenarios) {
    const verdict = verdictOf(scenario);
    const base = (id: TargetId) => ok(scenario.runs.find((r) => r.target === id))?.summary?.median;
    const ordered = [...scenario.runs].sort(
      (a, b) => TARGET_IDS.indexOf(a.target) - TARGET_IDS.indexOf(b.target),
    );
    ordered.forEach((run, i) => {
      const name = i === 0 ? scenario.scenario.name : "";
      const mount = run.target === "computerd";
      const tail = mount
        ? [
            ...refCells(REFERENCE[scenario.scenario.name]),
            verdict.vsPeer === undefined ? "-" : verdict.vsPeer.toFixed(2),
            verdictCell(verdict),
          ]
        : ["", "", "", ""];
      if (run.error || !run.summary) {
        failures.push(
          `[${failures.length + 1}] ${scenario.scenario.name} on ${run.target}: ${run.error ?? "no samples"}`,
        );
        const blanks = Array.from({ length: 8 }, () => "");
        rows.push([name, run.target, `FAILED [${failures.length}]`, ...blanks, ...tail]);
        return;
      }
      const s = run.summary;
      const counts = counterMedians(run);
      rows.push([
        name,
        run.target,
        formatMs(s.median),
        formatMs(s.p95),
        formatMs(s.min),
        formatMs(s.max),
        run.target === "tmpfs" ? "" : formatRatio(s.median, base("tmpfs")),
        run.target === "disk" ? "" : formatRatio(s.median, base("disk")),
        run.settle ? formatMs(run.settle.median) : "-",
        counts.fuseOps === undefined ? (mount ? "-" : "") : String(Math.round(counts.fuseOps)),
        counts.sqlStatements === undefined ? (mount ? "-" : "") : String(Math.round(counts.sqlStatements)),
        ...tail,
      ]);
    });
  }
  const met = scenarios.map(verdictOf).filter((v) => v.met !== undefined);
  const lines = [
    renderTable(header, rows, 2),
    "",
    "Times in ms, timed inside bash ($EPOCHREALTIME) in a fresh directory per repetition; ratios are medians of this run.",
    "settle: untimed, after the run: the mount's fence (every write stored in the mirror), syncfs on tmpfs/disk.",
    "FUSE ops: requests the daemon served during the timed part; SQL: mirror statements from the run's start until its fence returned (medians).",
    "peer ms, peer x disk: the reference daemon on a machine like ours (BENCH.md); x peer = (ours x disk) / (peer x disk).",
    "target: BENCH.md's goal for the mount: metadata scenarios <= 1x disk, 64 MiB scenarios <= 3x disk.",
    `Targets met: ${met.filter((v) => v.met).length} of ${met.length}.`,
  ];
  if (failures.length > 0) lines.push("", "Failures:", ...failures);
  if (fleet.length > 0) {
    lines.push("", "Fleet scenarios (need computerd serve + the Worker):");
    for (const f of fleet)
      lines.push(`  ${f.name.padEnd(36)} target < ${f.targetMs} ms  ${f.pending ?? "ready"}`);
  }
  return lines.join("\n");
}
