/** The Markdown report of one run: the facts of the run and its table (GFM, markdown-table). */
import { markdownTable } from "markdown-table";
import type { FsBenchDocument } from "../fs-bench/document.ts";
import { COUNTERS_LEGEND } from "./counters-cell.ts";
import { RUN_TABLE_HEADER, runFacts, runTableRows } from "./run-table.ts";

const escapeCell = (cell: string) => cell.replaceAll("|", "\\|");

/** The Markdown document; `chartFile` is the SVG beside it, linked when given. */
export function markdownReport(doc: FsBenchDocument, chartFile?: string): string {
  const rows = runTableRows(doc).map((r) => r.map(escapeCell));
  return [
    `# fs-bench ${doc.startedAt}`,
    "",
    ...runFacts(doc).map((f) => `- ${f}`),
    "",
    markdownTable([[...RUN_TABLE_HEADER], ...rows], {
      align: ["l", "l", "r", "r", "r", "r", "r", "r", "r", "l", "l", "l"],
    }),
    "",
    "Times in ms (median of the repetitions); ratios: the mount's (or the fleet's) median over tmpfs's and disk's of the same run.",
    `Counters: ${COUNTERS_LEGEND}`,
    ...(chartFile ? ["", `![ratios to tmpfs and disk](${chartFile})`] : []),
    "",
  ].join("\n");
}
