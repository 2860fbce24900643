/**
 * The two outputs of a run: a table for people (one row per scenario and backend, with the
 * SQL counters and the ratios to the tmpfs and disk baselines of the same run) and one JSON
 * document for machines.
 */
import type { BenchOptions } from "./options.ts";
import type { BackendReport, ScenarioResult } from "./run-bench.ts";
import type { SourceFacts } from "./source-facts.ts";
import { summarize } from "./stats.ts";
import { formatMs, formatRatio, renderTable } from "./table-format.ts";
import { BACKEND_IDS } from "./target.ts";

/** The JSON document written to bench/results/vfs-<timestamp>.json. */
export interface BenchDocument {
  schema: "computer.vfs-bench/1";
  startedAt: string;
  finishedAt: string;
  source: SourceFacts;
  host: Record<string, string | number>;
  options: Omit<BenchOptions, "outDir">;
  backends: BackendReport[];
  results: ScenarioResult[];
}

const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumSignificantDigits: 3 });

function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return "-";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}

/** Scenarios whose SQL counts differ between vfs backends: the same engine should ask the same of SQLite. */
function sqlMismatches(results: readonly ScenarioResult[]): string[] {
  const lines: string[] = [];
  for (const scenario of new Set(results.map((r) => r.scenario))) {
    const counted = results.filter((r) => r.scenario === scenario && r.sql);
    const distinct = new Set(counted.map((r) => JSON.stringify(r.sql)));
    if (distinct.size > 1) {
      const detail = counted.map((r) => `${r.backend} ${r.sql?.statements} stmts`).join(", ");
      lines.push(`WARNING: SQL counts differ between backends for ${scenario} (${detail}).`);
    }
  }
  return lines;
}

/** The table for people, with a legend of each backend's timing method. */
export function formatReport(results: readonly ScenarioResult[], backends: readonly BackendReport[]): string {
  const header = [
    "scenario",
    "backend",
    "median ms",
    "min",
    "max",
    "inside ms",
    "ops/s",
    "SQL stmts",
    "SQL tx",
    "blob in",
    "blob out",
    "x tmpfs",
    "x disk",
  ];
  const rows: string[][] = [];
  const scenarios = [...new Set(results.map((r) => r.scenario))];
  for (const scenario of scenarios) {
    const group = results.filter((r) => r.scenario === scenario);
    group.sort((a, b) => BACKEND_IDS.indexOf(a.backend) - BACKEND_IDS.indexOf(b.backend));
    const baseline = (id: string) => group.find((r) => r.backend === id)?.summary.median;
    for (const r of group) {
      const stable = r.sqlStable === false ? "*" : "";
      rows.push([
        r.label,
        r.backend,
        formatMs(r.summary.median),
        formatMs(r.summary.min),
        formatMs(r.summary.max),
        r.insideMs ? formatMs(summarize(r.insideMs).median) : "-",
        r.opsPerSec === null ? "-" : `${compact.format(r.opsPerSec)} ${r.unit}/s`,
        r.sql ? `${r.sql.statements}${stable}` : "-",
        r.sql ? String(r.sql.transactions) : "-",
        formatBytes(r.sql?.blobBytesIn),
        formatBytes(r.sql?.blobBytesOut),
        r.backend === "tmpfs" ? "" : formatRatio(r.summary.median, baseline("tmpfs")),
        r.backend === "disk" || r.backend === "tmpfs" ? "" : formatRatio(r.summary.median, baseline("disk")),
      ]);
    }
  }
  const ordered = [...backends].sort((a, b) => BACKEND_IDS.indexOf(a.id) - BACKEND_IDS.indexOf(b.id));
  const legend = ordered.map((b) => {
    const notes = b.notes
      ? Object.entries(b.notes)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${v}`)
          .join(", ")
      : "";
    const state = b.error ? `FAILED: ${b.error.split("\n")[0]}` : b.timing;
    return `  ${b.id.padEnd(8)} ${b.name}: ${state}${notes ? ` (${notes})` : ""}`;
  });
  return [
    renderTable(header, rows, 2),
    "",
    "SQL stmts/tx/blob bytes: what the timed part asked of SQLite (deterministic; * = differed between reps).",
    "inside ms: the Durable Object's own performance.now() around the scenario's code (1 ms ticks; no commit).",
    "Durable Object times under ~1 ms (plain workerd) or ~5 ms (wrangler dev) are within round-trip noise.",
    "Ratios: median / the median of the same scenario on that baseline in this run.",
    ...legend,
    ...sqlMismatches(results),
  ].join("\n");
}

/** `date` as a file-name-safe UTC timestamp, e.g. 2026-11-30T12-04-05Z. */
export function fileTimestamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");
}
