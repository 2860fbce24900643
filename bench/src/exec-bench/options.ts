/** Command-line options of exec-bench (`npm run bench:exec -- --help`). */

import { parseArgs } from "node:util";
import { countOption } from "../count-option.ts";
import { WARM_UP_CALLS } from "./timed-exec.ts";

/** The resolved options of one run. */
export interface ExecBenchOptions {
  /** Warm round trips per runtime. */
  runs: number;
  /** Untimed calls before them, after the first (timed apart). */
  warmup: number;
  /** Repetitions of the file-operations program per target. */
  reps: number;
  /** Leave the container runtime out even where this machine can run it. */
  noContainer: boolean;
  tmpfsDir: string;
  diskDir: string;
  /** Where the JSON document goes. */
  outDir: string;
}

export const USAGE = `Usage: npm run bench:exec -- [options]

  --runs N          warm round trips of the trivial program per runtime (default 100)
  --warmup N        untimed calls before them, after the first (default 20, as bench:fs)
  --reps N          repetitions of the 1,000 file operations per target (default 5)
  --no-container    leave the container runtime out
  --tmpfs-dir DIR   the tmpfs baseline's directory (default /dev/shm)
  --disk-dir DIR    the disk baseline's directory (default /var/tmp)
  --out DIR         where the JSON document goes (default bench/results)
  --help            this text`;

/** Parses `argv` (without node and the script); undefined when --help was asked for. Throws on bad options. */
export function parseExecBenchOptions(
  argv: readonly string[],
  defaultOutDir: string,
): ExecBenchOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      runs: { type: "string" },
      warmup: { type: "string" },
      reps: { type: "string" },
      "no-container": { type: "boolean", default: false },
      "tmpfs-dir": { type: "string" },
      "disk-dir": { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    runs: countOption(values.runs, 100, "runs"),
    warmup: countOption(values.warmup, WARM_UP_CALLS, "warmup", 0),
    reps: countOption(values.reps, 5, "reps"),
    noContainer: values["no-container"],
    tmpfsDir: values["tmpfs-dir"] ?? "/dev/shm",
    diskDir: values["disk-dir"] ?? "/var/tmp",
    outDir: values.out ?? defaultOutDir,
  };
}
