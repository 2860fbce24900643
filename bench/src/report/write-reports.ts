/**
 * Writes the reports of runs beside their JSON: for one run its Markdown table and SVG chart
 * (`fs-<time>.md`, `fs-<time>.svg`); for runs given together one HTML page.
 */
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import type { FsBenchDocument } from "../fs-bench/document.ts";
import { htmlReport, runLabel } from "./html-report.ts";
import { markdownReport } from "./markdown.ts";
import { ratioChart } from "./ratio-chart.ts";
import { runRows } from "./run-rows.ts";

/** The files one run's reports were written to. */
export interface RunReports {
  markdown: string;
  svg?: string;
}

/** Writes `fs-<time>.md` and `.svg` beside `jsonPath` (which holds `doc`). */
export function writeRunReports(doc: FsBenchDocument, jsonPath: string): RunReports {
  const stem = jsonPath.replace(/\.json$/, "");
  const svg = ratioChart(
    runRows(doc),
    `fs-bench ${runLabel(doc)}: ratios to tmpfs and disk (log scale; red: target)`,
  );
  if (svg) writeFileSync(`${stem}.svg`, svg);
  const markdown = `${stem}.md`;
  writeFileSync(markdown, markdownReport(doc, svg ? basename(`${stem}.svg`) : undefined));
  return { markdown, ...(svg ? { svg: `${stem}.svg` } : {}) };
}

/** Writes the HTML page of `docs` (oldest first) to `path`. */
export function writeHtmlReport(docs: readonly FsBenchDocument[], path: string): string {
  writeFileSync(path, htmlReport(docs));
  return path;
}
