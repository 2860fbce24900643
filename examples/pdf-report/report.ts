/**
 * The report the pdf-report agent writes: Markdown with a title block, headings, a table, a
 * code block and the chart it drew, from one table of build timings.
 */
import type { Chart } from "./chart.ts";

/** Seconds per build step, before and after the change the report is about. */
export const TIMINGS: Chart = {
  title: "Seconds per build step",
  series: ["before", "after"],
  rows: [
    { label: "npm install", values: [41.2, 12.9] },
    { label: "typecheck", values: [9.8, 9.1] },
    { label: "unit tests", values: [8.4, 7.9] },
    { label: "bundle", values: [3.6, 1.2] },
  ],
};

/** The report's title, its first heading in the PDF. */
export const TITLE = "Build report: the cache pays off";

/** The report as Markdown; the chart is `chart` beside it. */
export function reportMarkdown(timings: Chart, date: string, chart = "chart.eps"): string {
  const total = (i: number) => timings.rows.reduce((sum, row) => sum + (row.values[i] ?? 0), 0);
  const [before, after] = [total(0), total(1)];
  const rows = timings.rows.map((row) => {
    const [b = 0, a = 0] = row.values;
    return `| ${row.label} | ${b.toFixed(1)} | ${a.toFixed(1)} | ${(b / a).toFixed(1)}× |`;
  });
  return `---
title: "${TITLE}"
author: the pdf-report agent
date: ${date}
---

# Summary

With the dependency cache, a full build takes **${after.toFixed(1)} s** instead of
${before.toFixed(1)} s: ${(before / after).toFixed(1)} times faster. Installing dependencies gained
the most; type checking barely moved.

# Timings

| step | before (s) | after (s) | speed-up |
|------|-----------:|----------:|---------:|
${rows.join("\n")}

# Method

Each step was timed as the median of five runs; the speed-up of a step is

\`\`\`ts
const speedup = (before: number, after: number) => before / after;
\`\`\`

# Chart

![Seconds per step, before and after the cache](${chart})
`;
}
