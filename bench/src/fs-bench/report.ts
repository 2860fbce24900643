/**
 * fs-bench's two outputs: the table for people (per scenario, one row per target with median,
 * p95, min, max and the ratios to tmpfs and disk; the mount's row also carries its counters,
 * the reference line and the verdict against our target) and the JSON document for machines.
 */

import { countersCell } from "../report/counters-cell.ts";
import { formatMs, formatRatio, renderTable } from "../table-format.ts";
import type { FleetReport, FleetRun } from "./fleet-run.ts";
import { peerVsDisk, REFERENCE, type ReferenceLine } from "./reference.ts";
import type { ScenarioRun, TargetRun } from "./runner.ts";
import type { ScenarioKind } from "./scenarios.ts";
import { fuseTotal, type MountCounters, TARGET_IDS, type TargetId } from "./target.ts";

/** BENCH.md's targets: the mount's median over the disk's, at most this. */
export const TARGET_VS_DISK: Record<ScenarioKind, number> = { metadata: 1, bulk: 3, install: 1.2 };

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

/** The table for people; `fleet` when fleet scenarios were selected. */
export function formatFsReport(scenarios: readonly ScenarioRun[], fleet?: FleetReport): string {
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
  if (scenarios.length === 0) return fleet ? formatFleet(fleet) : "No scenarios ran.";
  const lines = [
    renderTable(header, rows, 2),
    "",
    "Times in ms, timed inside bash ($EPOCHREALTIME) in a fresh directory per repetition; ratios are medians of this run.",
    "settle: untimed, after the run: the mount's fence (every write stored in the mirror), syncfs on tmpfs/disk.",
    "FUSE ops: requests the daemon served during the timed part; SQL: mirror statements from the run's start until its fence returned (medians).",
    "peer ms, peer x disk: the reference daemon on a machine like ours (BENCH.md); x peer = (ours x disk) / (peer x disk).",
    "target: BENCH.md's goal for the mount: metadata scenarios <= 1x disk, 64 MiB scenarios <= 3x disk, npm install <= 1.2x disk.",
    `Targets met: ${met.filter((v) => v.met).length} of ${met.length}.`,
  ];
  if (failures.length > 0) lines.push("", "Failures:", ...failures);
  if (fleet) lines.push("", formatFleet(fleet));
  return lines.join("\n");
}

/** Medians of each `detail` number over the samples (zeros count), as the reports' counters cell. */
function detailMedians(run: FleetRun): string {
  const keys = [...new Set(run.samples.flatMap((s) => Object.keys(s.detail)))];
  const medians: Record<string, number> = {};
  for (const key of keys) {
    const m = median(run.samples.map((s) => s.detail[key]).filter((v): v is number => Number.isFinite(v)));
    if (m !== undefined) medians[key] = m;
  }
  return countersCell(medians);
}

/** The first line and the last lines of a long message (the JSON keeps all of it). */
function excerpt(message: string): string {
  const lines = message.split("\n").filter((l) => l.trim() !== "");
  if (lines.length <= 8) return lines.join("\n    ");
  return [lines[0], "...", ...lines.slice(-6)].join("\n    ");
}

/** The fleet part: one row per fleet scenario, with BENCH.md's target for the median. */
export function formatFleet(fleet: FleetReport): string {
  const title =
    "Fleet scenarios (the local Worker + computerd host: computerd serve with mount, sync and bwrap):";
  if (fleet.unavailable) return `${title}\n  not run: ${fleet.unavailable}`;
  if (fleet.skipped && fleet.runs.length === 0) return `${title}\n  FAILED: ${excerpt(fleet.skipped)}`;
  const header = ["fleet scenario", "median", "p95", "min", "max", "n", "target", "verdict", "medians of"];
  const failures: string[] = [];
  const rows = fleet.runs.map((run) => {
    const { targetMs, limitVsDisk } = run.scenario;
    const target =
      targetMs !== undefined ? `< ${targetMs}` : limitVsDisk !== undefined ? `<= ${limitVsDisk}x disk` : "-";
    if (run.error || !run.summary) {
      failures.push(`[${failures.length + 1}] ${run.scenario.name}: ${run.error ?? "no samples"}`);
      return [run.scenario.name, `FAILED [${failures.length}]`, "", "", "", "", target, "-", ""];
    }
    const s = run.summary;
    return [
      run.scenario.name,
      formatMs(s.median),
      formatMs(s.p95),
      formatMs(s.min),
      formatMs(s.max),
      String(s.n),
      target,
      // A ratio target is judged in the Markdown/HTML report, beside the disk's time.
      targetMs === undefined ? "-" : s.median < targetMs ? "ok" : "MISS",
      detailMedians(run) +
        (run.restarts > 0 ? ` (${run.restarts} repeated: Worker reloaded or stream cut)` : ""),
    ];
  });
  const notes = [
    fleet.startMs === undefined ? "" : `fleet start ${formatMs(fleet.startMs)} ms`,
    fleet.coldStartMs === undefined
      ? ""
      : `first exec of the computer (cold start, true) ${formatMs(fleet.coldStartMs)} ms`,
    fleet.skipped ? `stopped early: ${excerpt(fleet.skipped)}` : "",
  ].filter((n) => n !== "");
  return [
    title,
    renderTable(header, rows, 1),
    "fence: from the command's last output to the exit event (the DO holds every file; the check lists them through the API);",
    "computerdFenceMs, fenceBatches, fenceChanges: computerd's own fence and what it alone sent; commandMs: the command until its last output (fence), or the exec's duration as the DO journals it (round trips: push, command and fence of a container exec).",
    "medians of: counters beside the times (FUSE requests, the mirror's SQL, RPC round trips to the DO and bytes, the DO's SQL; the JSON has each by type).",
    ...(notes.length > 0 ? [notes.join("; ")] : []),
    ...(failures.length > 0 ? ["Failures:", ...failures.map(excerpt)] : []),
  ].join("\n");
}
