/** Command-line options of transfer-bench (`npm run bench:transfer -- --help`). */
import { parseArgs } from "node:util";

/** The resolved options of one run. */
export interface TransferBenchOptions {
  /** Sizes of the API PUT/GET rows, MiB. */
  sizesMiB: number[];
  /** Size of the file the container first sees and of the one a command writes, MiB. */
  containerMiB: number;
  /** Repetitions of each timed row (the median is reported). */
  reps: number;
  /** Leave the container rows out even where this machine can run them. */
  noContainer: boolean;
  /** Where the JSON document goes. */
  outDir: string;
  /** Where a CPU profile of the Worker isolate per group of rows goes (none when undefined). */
  cpuProfileDir?: string;
}

export const USAGE = `Usage: npm run bench:transfer -- [options]

  --sizes A,B       API PUT/GET sizes in MiB (default 100,400)
  --container N     MiB the container reads after a PUT and a command writes (default 100)
  --reps N          repetitions of each row, median reported (default 3)
  --quick           one repetition, sizes 100 (CI)
  --no-container    leave the container rows out
  --out DIR         where the JSON document goes (default bench/results)
  --cpu-profile DIR a CPU profile of the Worker isolate per group of rows (.cpuprofile files
                    and a summary of each: the functions with the most self and total time)
  --help            this text`;

function positive(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} wants integers >= 1, got "${value}"`);
  return n;
}

/** Parses `argv` (without node and the script); undefined when --help was asked for. Throws on bad options. */
export function parseTransferBenchOptions(
  argv: readonly string[],
  defaultOutDir: string,
): TransferBenchOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      sizes: { type: "string" },
      container: { type: "string" },
      reps: { type: "string" },
      quick: { type: "boolean", default: false },
      "no-container": { type: "boolean", default: false },
      out: { type: "string" },
      "cpu-profile": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const quick = values.quick;
  return {
    sizesMiB: (values.sizes ?? (quick ? "100" : "100,400"))
      .split(",")
      .map((s) => positive(s.trim(), "sizes")),
    containerMiB: positive(values.container ?? "100", "container"),
    reps: values.reps === undefined ? (quick ? 1 : 3) : positive(values.reps, "reps"),
    noContainer: values["no-container"],
    outDir: values.out ?? defaultOutDir,
    ...(values["cpu-profile"] === undefined ? {} : { cpuProfileDir: values["cpu-profile"] }),
  };
}
