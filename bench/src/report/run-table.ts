/**
 * The table of one run as cells, shared by the Markdown and the HTML report: one line per
 * scenario and place with the median, p95, min, max and count of the samples, the ratios to
 * tmpfs and disk, BENCH.md's target and whether it was met, and the counters beside the times.
 */
import type { FsBenchDocument } from "../fs-bench/document.ts";
import { summarize } from "../stats.ts";
import { formatMs } from "../table-format.ts";
import { countersCell } from "./counters-cell.ts";
import { placesOf, runRows, type ScenarioRow } from "./run-rows.ts";

export const RUN_TABLE_HEADER = [
  "scenario",
  "place",
  "median ms",
  "p95",
  "min",
  "max",
  "n",
  "× tmpfs",
  "× disk",
  "target",
  "met",
  "counters (medians)",
] as const;

function ratio(n: number | undefined): string {
  return n === undefined ? "" : `${n.toFixed(n < 10 ? 2 : 1)}x`;
}

function targetCell(row: ScenarioRow): string {
  if (row.limitVsDisk !== undefined) return `≤ ${row.limitVsDisk}x disk`;
  if (row.limitMs !== undefined) return `< ${row.limitMs} ms`;
  return "";
}

/** The rows of cells of `doc`'s table. */
export function runTableRows(doc: FsBenchDocument): string[][] {
  const lines: string[][] = [];
  for (const row of runRows(doc)) {
    placesOf(row).forEach((place, i) => {
      const times = row.times[place];
      const ours = place === "computerd" || place === "fleet";
      const first = i === 0 ? row.name : "";
      const tail = ours
        ? [
            ratio(row.vsTmpfs),
            ratio(row.vsDisk),
            targetCell(row),
            row.met === undefined ? "" : row.met ? "yes" : "NO",
            countersCell(row.counters),
          ]
        : ["", "", "", "", ""];
      if (!times || times.samples.length === 0) {
        lines.push([
          first,
          place,
          `FAILED: ${(times?.error ?? "no samples").split("\n")[0]?.slice(0, 120)}`,
          "",
          "",
          "",
          "0",
          ...tail,
        ]);
        return;
      }
      const s = summarize(times.samples);
      lines.push([
        first,
        place,
        formatMs(s.median),
        formatMs(s.p95),
        formatMs(s.min),
        formatMs(s.max),
        String(s.n),
        ...tail,
      ]);
    });
  }
  // What did not run, said where the numbers would be.
  const note = (name: string, place: string, text: string) =>
    lines.push([name, place, text, "", "", "", "0", "", "", "", "", ""]);
  for (const k of doc.skipped ?? []) note(k.name, "-", `skipped: ${k.reason}`);
  if (doc.fleet?.unavailable) note("fleet scenarios", "fleet", `not run: ${doc.fleet.unavailable}`);
  else if (doc.fleet?.skipped)
    note("fleet scenarios", "fleet", `FAILED: ${doc.fleet.skipped.split("\n")[0]?.slice(0, 160)}`);
  return lines;
}

/** One line about the machine and the run: what the numbers were measured on. */
export function runFacts(doc: FsBenchDocument): string[] {
  const h = doc.host;
  const facts = [
    `Run ${doc.startedAt} → ${doc.finishedAt}, commit ${doc.source.commit.slice(0, 12)}${doc.source.dirty ? " (dirty)" : ""}`,
    `Machine: ${h.cpuModel ?? "?"} × ${h.cpuCount ?? "?"}, ${typeof h.memoryBytes === "number" ? `${(h.memoryBytes / 2 ** 30).toFixed(1)} GiB` : "? GiB"}, kernel ${h.kernel ?? "?"}${h.fuseWakeHere === undefined ? "" : ` (fuse.wake_here ${h.fuseWakeHere})`}, load ${h.loadAtStart ?? "?"} → ${h.loadAtEnd ?? "?"}`,
    `Versions: node ${h.benchNode ?? "?"} (bench), ${h.scenarioNode ?? "?"} (scenarios), npm ${h.npm ?? "?"}, ${h.git ?? "git ?"}, bash ${h.bash ?? "?"}, SQLite ${h.sqlite ?? "?"}`,
    `Options: ${doc.options.reps} repetitions, ${doc.options.warmup} warm-up; disk ${doc.options.diskDir}, tmpfs ${doc.options.tmpfsDir}`,
  ];
  return facts;
}
