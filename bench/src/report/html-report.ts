/**
 * The HTML report of one or more runs (oldest first): one self-contained page (inline CSS and
 * SVG, no script, nothing fetched) with the latest run's facts, chart and table, and the trend
 * of every scenario over all the runs given.
 */
import type { FsBenchDocument } from "../fs-bench/document.ts";
import { COUNTERS_LEGEND } from "./counters-cell.ts";
import { ratioChart } from "./ratio-chart.ts";
import { runRows, type ScenarioRow } from "./run-rows.ts";
import { RUN_TABLE_HEADER, runFacts, runTableRows } from "./run-table.ts";
import { type TrendPoint, trendChart } from "./trend-chart.ts";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ENTITIES[c] ?? c);

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#111827}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #d1d5db;padding:2px 6px;vertical-align:top}
th{background:#f3f4f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.first td{border-top:2px solid #9ca3af}.miss{color:#b91c1c;font-weight:600}
.trends{display:flex;flex-wrap:wrap;gap:8px}.chart svg{max-width:100%;height:auto}
.facts{color:#374151;font-size:13px}`;

/** "2026-12-01 02:00" from an ISO time. */
export function runLabel(doc: FsBenchDocument): string {
  return doc.startedAt.slice(0, 16).replace("T", " ");
}

function tableHtml(doc: FsBenchDocument): string {
  const numeric = new Set([2, 3, 4, 5, 6, 7, 8]);
  const head = `<tr>${RUN_TABLE_HEADER.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr>`;
  const body = runTableRows(doc)
    .map((cells) => {
      const tds = cells.map((c, i) => {
        const cls = [numeric.has(i) ? "num" : "", c === "NO" || c.startsWith("FAILED") ? "miss" : ""].filter(
          Boolean,
        );
        return `<td${cls.length ? ` class="${cls.join(" ")}"` : ""}>${escapeHtml(c)}</td>`;
      });
      return `<tr${cells[0] ? ' class="first"' : ""}>${tds.join("")}</tr>`;
    })
    .join("\n");
  return `<table>\n${head}\n${body}\n</table>`;
}

/**
 * The scenarios of all runs, in the latest run's order, then any the latest lacks; by name,
 * which says the work's size (a quick run's "create 200 files" is a trend of its own).
 */
function scenarioOrder(rowsPerRun: ScenarioRow[][]): { id: string; name: string }[] {
  const seen = new Map<string, string>();
  for (const rows of [...rowsPerRun].reverse())
    for (const r of rows) if (!seen.has(r.name)) seen.set(r.name, r.id);
  return [...seen].map(([name, id]) => ({ id, name }));
}

/** The page for `docs` (at least one, oldest first). */
export function htmlReport(docs: readonly FsBenchDocument[]): string {
  const latest = docs.at(-1);
  if (!latest) throw new Error("htmlReport: no runs");
  const rowsPerRun = docs.map(runRows);
  const latestRows = rowsPerRun.at(-1) ?? [];
  const chart = ratioChart(latestRows, `Ratios of run ${runLabel(latest)} (log scale; red: target)`);
  const trends = scenarioOrder(rowsPerRun).map(({ id, name }) => {
    const points: TrendPoint[] = docs.map((doc, i) => {
      const row = rowsPerRun[i]?.find((r) => r.name === name);
      return { label: runLabel(doc).slice(5), ...(row ? { row } : {}) };
    });
    return `<div class="chart trend" data-scenario="${escapeHtml(id)}">${trendChart(name, points)}</div>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Computer benchmarks: ${escapeHtml(runLabel(latest))}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Computer benchmarks</h1>
<p class="facts">${runFacts(latest).map(escapeHtml).join("<br>")}</p>
<h2>Latest run: ratios to tmpfs and disk</h2>
<div class="chart ratios">${chart ?? "<p>No scenario has a ratio in this run.</p>"}</div>
<h2>Latest run: every scenario</h2>
${tableHtml(latest)}
<p class="facts">Counters: ${escapeHtml(COUNTERS_LEGEND)}</p>
<h2>Trend over ${docs.length} run${docs.length === 1 ? "" : "s"} (median ms per place)</h2>
<p class="facts">Runs: ${docs.map((d) => `${escapeHtml(runLabel(d))} (${escapeHtml(d.source.commit.slice(0, 8))})`).join(", ")}</p>
<div class="trends">
${trends.join("\n")}
</div>
</body>
</html>
`;
}
