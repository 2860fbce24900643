/**
 * `make bench-report` (`npm run bench:report -- [RUN.json ...] [--out FILE]`): one
 * self-contained HTML page from fs-bench runs: the latest run's table and chart and the trend of
 * every scenario over the runs. With no file, every bench/results/fs-*.json (oldest first).
 * `-` as a file reads one run from stdin; `--out -` writes the page to stdout.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { FsBenchDocument } from "../fs-bench/document.ts";
import { htmlReport } from "./html-report.ts";
import { parseRun, readRun, runsIn } from "./read-run.ts";
import { writeHtmlReport } from "./write-reports.ts";

const RESULTS = fileURLToPath(new URL("../../results", import.meta.url));
const USAGE = `Usage: npm run bench:report -- [RUN.json ...] [--out FILE]

  RUN.json    fs-bench documents, any order (sorted by start time); "-" reads one from stdin;
              default: every ${RESULTS}/fs-*.json
  --out FILE  the page (default ${RESULTS}/report.html); "-" for stdout`;

function main(): number {
  const { values, positionals } = parseArgs({
    options: { out: { type: "string" }, help: { type: "boolean", default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  // `npm run -w` runs in bench/: paths are the caller's, relative to where npm was started.
  const from = process.env.INIT_CWD ?? process.cwd();
  const files =
    positionals.length > 0 ? positionals.map((f) => (f === "-" ? f : resolve(from, f))) : runsIn(RESULTS);
  const docs: FsBenchDocument[] = files.map((f) =>
    f === "-" ? parseRun(readFileSync(0, "utf8"), "stdin") : readRun(f),
  );
  if (docs.length === 0) {
    console.error(`bench:report: no runs (${RESULTS} has no fs-*.json; run make bench first)`);
    return 2;
  }
  docs.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const out =
    values.out === undefined
      ? join(RESULTS, "report.html")
      : values.out === "-"
        ? "-"
        : resolve(from, values.out);
  if (out === "-") process.stdout.write(htmlReport(docs));
  else console.error(`bench:report: ${docs.length} run(s) → ${writeHtmlReport(docs, out)}`);
  return 0;
}

try {
  process.exitCode = main();
} catch (err) {
  console.error(`bench:report: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 2;
}
