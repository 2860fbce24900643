/**
 * The regression gate: two fs-bench documents (an old run and a new one) compared scenario by
 * scenario and place by place. A change counts when the new median differs from the old by
 * more than the noise threshold computed from both runs' samples (statistics.ts); only our own
 * places (the mount, the fleet) can regress — tmpfs and disk are shown for context, since they
 * measure the machine, not our code. A scenario that worked before and fails now regresses too.
 */
import type { FsBenchDocument } from "../fs-bench/document.ts";
import { formatMs, renderTable } from "../table-format.ts";
import { type Place, placesOf, runRows, type ScenarioRow } from "./run-rows.ts";
import { median, noiseThreshold } from "./statistics.ts";

/** What happened to one scenario at one place. */
export type Change = "regression" | "improvement" | "unchanged" | "not judged" | "failed" | "new" | "gone";

/** One line of the comparison. */
export interface CompareLine {
  id: string;
  name: string;
  place: Place;
  beforeMs?: number;
  afterMs?: number;
  /** afterMs / beforeMs − 1. */
  change?: number;
  /** The noise threshold as a fraction of beforeMs (undefined: too few samples). */
  threshold?: number;
  verdict: Change;
  /** Whether this place can fail the gate. */
  gated: boolean;
  note?: string;
}

/** The whole comparison. */
export interface Comparison {
  lines: CompareLine[];
  regressions: CompareLine[];
}

/** Places whose regressions fail the gate: what our code does. */
export const GATED_PLACES: readonly Place[] = ["computerd", "fleet"];

function compareAt(id: string, name: string, place: Place, before?: ScenarioRow, after?: ScenarioRow) {
  const old = before?.times[place];
  const now = after?.times[place];
  const gated = GATED_PLACES.includes(place);
  const line: CompareLine = { id, name, place, verdict: "unchanged", gated };
  const oldOk = old && !old.error && old.samples.length > 0 ? old.samples : undefined;
  const nowOk = now && !now.error && now.samples.length > 0 ? now.samples : undefined;
  const beforeMs = oldOk && median(oldOk);
  const afterMs = nowOk && median(nowOk);
  if (beforeMs !== undefined) line.beforeMs = beforeMs;
  if (afterMs !== undefined) line.afterMs = afterMs;
  if (!now) return { ...line, verdict: "gone" as const };
  if (!nowOk)
    return { ...line, verdict: oldOk ? ("failed" as const) : ("not judged" as const), note: now.error };
  if (!oldOk) return { ...line, verdict: old ? ("not judged" as const) : ("new" as const) };
  if (beforeMs === undefined || afterMs === undefined || beforeMs <= 0) return line;
  line.change = afterMs / beforeMs - 1;
  const threshold = noiseThreshold(oldOk, nowOk);
  if (threshold === undefined) return { ...line, verdict: "not judged" as const, note: "too few samples" };
  line.threshold = threshold;
  if (line.change > threshold) line.verdict = "regression";
  else if (line.change < -threshold) line.verdict = "improvement";
  return line;
}

/**
 * Between two nights the machine itself drifts, which the samples of one run cannot show: the
 * baselines (tmpfs, disk) run the same commands on the same machine, so how far they moved is
 * noise too. A gated line's threshold adds (in quadrature) the largest baseline change of its
 * scenario, or for the fleet's scenarios the median baseline change of the run.
 */
function addMachineDrift(lines: CompareLine[]): void {
  const drift = new Map<string, number>();
  for (const l of lines) {
    if (l.gated || l.change === undefined) continue;
    drift.set(l.id, Math.max(drift.get(l.id) ?? 0, Math.abs(l.change)));
  }
  const overall = median([...drift.values()]) ?? 0;
  for (const l of lines) {
    if (!l.gated || l.threshold === undefined || l.change === undefined) continue;
    const d = drift.get(l.id) ?? overall;
    if (d === 0) continue;
    l.threshold = Math.sqrt(l.threshold ** 2 + d ** 2);
    l.note = `incl. machine drift ${(d * 100).toFixed(1)}%`;
    l.verdict = l.change > l.threshold ? "regression" : l.change < -l.threshold ? "improvement" : "unchanged";
  }
}

/**
 * Compares `after` with `before`, scenario by scenario by name: a name says the work's size
 * ("create 200 files" in a quick run), so a quick run's lines never meet a full run's.
 */
export function compareRuns(before: FsBenchDocument, after: FsBenchDocument): Comparison {
  const oldRows = new Map(runRows(before).map((r) => [r.name, r]));
  const newRows = runRows(after);
  const lines: CompareLine[] = [];
  for (const row of newRows) {
    const old = oldRows.get(row.name);
    const places = [...new Set([...placesOf(row), ...(old ? placesOf(old) : [])])];
    for (const place of places) lines.push(compareAt(row.id, row.name, place, old, row));
    oldRows.delete(row.name);
  }
  for (const old of oldRows.values())
    for (const place of placesOf(old)) lines.push(compareAt(old.id, old.name, place, old, undefined));
  addMachineDrift(lines);
  const regressions = lines.filter((l) => l.gated && (l.verdict === "regression" || l.verdict === "failed"));
  return { lines, regressions };
}

function percent(fraction: number | undefined): string {
  if (fraction === undefined) return "-";
  const sign = fraction > 0 ? "+" : "";
  return `${sign}${(fraction * 100).toFixed(1)}%`;
}

/** The table of changes for people. */
export function formatComparison(comparison: Comparison): string {
  const rows = comparison.lines.map((l) => [
    l.name,
    l.place,
    l.beforeMs === undefined ? "-" : formatMs(l.beforeMs),
    l.afterMs === undefined ? "-" : formatMs(l.afterMs),
    percent(l.change),
    l.threshold === undefined ? "-" : `±${(l.threshold * 100).toFixed(1)}%`,
    l.gated && (l.verdict === "regression" || l.verdict === "failed") ? l.verdict.toUpperCase() : l.verdict,
    l.note ?? "",
  ]);
  const table = renderTable(
    ["scenario", "place", "old ms", "new ms", "change", "noise", "verdict", "note"],
    rows,
    2,
  );
  const n = comparison.regressions.length;
  return [
    table,
    "",
    "noise: 3 standard errors of the difference of the medians, from each run's own samples (robust σ = 1.4826 MAD),",
    "plus, for computerd and fleet, how far the same scenario's tmpfs/disk baselines moved (machine drift).",
    "Only computerd and fleet rows can fail the gate; tmpfs and disk measure the machine.",
    n === 0
      ? "No regression."
      : `${n} regression${n === 1 ? "" : "s"}: ${comparison.regressions.map((r) => `${r.name} (${r.place})`).join(", ")}.`,
  ].join("\n");
}
