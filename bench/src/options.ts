/** Command-line options of the vfs benchmark (`npm run bench:vfs -- --help`). */

import { parseArgs } from "node:util";
import { countOption } from "./count-option.ts";
import { type BenchSize, FULL_SIZE, QUICK_SIZE, SCENARIOS } from "./scenarios.ts";
import { BACKEND_IDS, type BackendId } from "./target.ts";

/** The resolved options of one run. */
export interface BenchOptions {
  reps: number;
  warmup: number;
  quick: boolean;
  size: BenchSize;
  backends: BackendId[];
  scenarios: string[];
  /** Parent of the node:sqlite file databases and the "disk" baseline's directories. */
  diskDir: string;
  /** Parent of the "tmpfs" baseline's directories. */
  tmpfsDir: string;
  /** Where the JSON document is written. */
  outDir: string;
}

export const USAGE = `Usage: npm run bench:vfs -- [options]

  --reps N            timed repetitions per scenario and backend (default 5; --quick: 1)
  --warmup N          untimed repetitions before them (default 1; --quick: 0)
  --backend LIST      comma-separated: node (node:sqlite file), memory (node:sqlite :memory:),
                      workerd (Durable Object, plain workerd), wrangler (Durable Object, wrangler dev),
                      tmpfs, disk, fs (= tmpfs,disk), all (= node,workerd,tmpfs,disk; the default)
  --scenario LIST     comma-separated scenario ids (default: all):
                      ${SCENARIOS.map((s) => s.id).join(", ")}
  --quick             ${QUICK_SIZE.files} files and ${QUICK_SIZE.bigBytes >> 20} MiB instead of ${FULL_SIZE.files} and ${FULL_SIZE.bigBytes >> 20} MiB, 1 rep, no warm-up
  --disk-dir DIR      real-disk directory for node:sqlite files and the disk baseline (default /var/tmp)
  --tmpfs-dir DIR     tmpfs directory for the tmpfs baseline (default /dev/shm)
  --out DIR           where the JSON document goes (default bench/results)
  --help              this text`;

const BACKEND_GROUPS: Record<string, readonly BackendId[]> = {
  all: ["node", "workerd", "tmpfs", "disk"],
  fs: ["tmpfs", "disk"],
};

function backendList(value: string): BackendId[] {
  const ids = new Set<BackendId>();
  for (const name of value.split(",").map((s) => s.trim())) {
    const group = BACKEND_GROUPS[name];
    if (group) for (const id of group) ids.add(id);
    else if ((BACKEND_IDS as readonly string[]).includes(name)) ids.add(name as BackendId);
    else throw new Error(`unknown backend "${name}" (known: ${[...BACKEND_IDS, "fs", "all"].join(", ")})`);
  }
  return BACKEND_IDS.filter((id) => ids.has(id));
}

function scenarioList(value: string | undefined): string[] {
  if (value === undefined) return SCENARIOS.map((s) => s.id);
  const wanted = value.split(",").map((s) => s.trim());
  for (const id of wanted) {
    if (!SCENARIOS.some((s) => s.id === id)) throw new Error(`unknown scenario "${id}"`);
  }
  return SCENARIOS.map((s) => s.id).filter((id) => wanted.includes(id));
}

/** Parses `argv` (without node and the script); returns undefined when --help was asked for. */
export function parseOptions(argv: readonly string[], defaultOutDir: string): BenchOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      reps: { type: "string" },
      warmup: { type: "string" },
      backend: { type: "string" },
      scenario: { type: "string" },
      quick: { type: "boolean", default: false },
      "disk-dir": { type: "string" },
      "tmpfs-dir": { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const quick = values.quick;
  return {
    reps: countOption(values.reps, quick ? 1 : 5, "reps", 1),
    warmup: countOption(values.warmup, quick ? 0 : 1, "warmup", 0),
    quick,
    size: quick ? QUICK_SIZE : FULL_SIZE,
    backends: backendList(values.backend ?? "all"),
    scenarios: scenarioList(values.scenario),
    diskDir: values["disk-dir"] ?? "/var/tmp",
    tmpfsDir: values["tmpfs-dir"] ?? "/dev/shm",
    outDir: values.out ?? defaultOutDir,
  };
}
