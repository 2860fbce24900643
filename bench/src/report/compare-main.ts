/**
 * `npm run bench:compare -- OLD.json NEW.json`: the regression gate between two fs-bench runs.
 * Prints the table of changes; exits 1 when a scenario of ours got slower beyond the noise
 * threshold of the two runs' samples (or fails now and worked before), 2 on bad input.
 */
import { resolve } from "node:path";
import { compareRuns, formatComparison } from "./compare.ts";
import { readRun } from "./read-run.ts";

const USAGE = "Usage: npm run bench:compare -- OLD.json NEW.json";

function main(argv: readonly string[]): number {
  if (argv.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  const [before, after, ...rest] = argv;
  if (before === undefined || after === undefined || rest.length > 0) {
    console.error(USAGE);
    return 2;
  }
  // `npm run -w` runs in bench/: paths are the caller's, relative to where npm was started.
  const from = process.env.INIT_CWD ?? process.cwd();
  const comparison = compareRuns(readRun(resolve(from, before)), readRun(resolve(from, after)));
  console.log(`Old: ${before}\nNew: ${after}\n`);
  console.log(formatComparison(comparison));
  return comparison.regressions.length > 0 ? 1 : 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  console.error(`bench:compare: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 2;
}
