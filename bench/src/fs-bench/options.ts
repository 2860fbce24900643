/** Command-line options of fs-bench (`npm run bench:fs -- --help`). */
import { parseArgs } from "node:util";
import type { MountVia } from "./mount-target.ts";
import { findScenario, SCENARIOS, type ShellScenario } from "./scenarios.ts";
import { TARGET_IDS, type TargetId } from "./target.ts";

/** The resolved options of one run. */
export interface FsBenchOptions {
  reps: number;
  warmup: number;
  scenarios: ShellScenario[];
  targets: TargetId[];
  mountVia: MountVia;
  /** Real-disk parent: the disk target's directories and the mount's state dir and mount point. */
  diskDir: string;
  tmpfsDir: string;
  outDir: string;
}

export const USAGE = `Usage: npm run bench:fs -- [options]

  --reps N          timed repetitions per scenario and target (default 5; --quick: 1)
  --warmup N        untimed repetitions before them (default 1; --quick: 0)
  --scenario LIST   comma-separated ids or names (default: all), in BENCH.md order:
                    ${SCENARIOS.map((s) => s.id).join(", ")}
  --target LIST     comma-separated: ${TARGET_IDS.join(", ")} (default: all three)
  --mount HOW       driver (default): the computerd mount code with a counters/fence channel;
                    cli: \`computerd mount\` itself (no per-run counters; settle = 250 ms pause)
  --quick           1 repetition, no warm-up
  --disk-dir DIR    the real disk: disk target and the mount's state dir (default /var/tmp)
  --tmpfs-dir DIR   the tmpfs target (default /dev/shm)
  --out DIR         where the JSON document goes (default bench/results)
  --help            this text`;

function count(value: string | undefined, fallback: number, name: string, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} must be an integer >= ${min}, got "${value}"`);
  return n;
}

function scenarioList(value: string | undefined): ShellScenario[] {
  if (value === undefined) return [...SCENARIOS];
  const wanted = new Set<ShellScenario>();
  for (const name of value.split(",").map((s) => s.trim())) {
    const scenario = findScenario(name);
    if (!scenario)
      throw new Error(`unknown scenario "${name}" (known: ${SCENARIOS.map((s) => s.id).join(", ")})`);
    wanted.add(scenario);
  }
  return SCENARIOS.filter((s) => wanted.has(s));
}

function targetList(value: string | undefined): TargetId[] {
  if (value === undefined) return [...TARGET_IDS];
  const wanted = value.split(",").map((s) => s.trim());
  for (const id of wanted) {
    if (!(TARGET_IDS as readonly string[]).includes(id))
      throw new Error(`unknown target "${id}" (known: ${TARGET_IDS.join(", ")})`);
  }
  return TARGET_IDS.filter((id) => wanted.includes(id));
}

function mountVia(value: string | undefined): MountVia {
  if (value === undefined || value === "driver") return "driver";
  if (value === "cli") return "cli";
  throw new Error(`--mount wants driver or cli, got "${value}"`);
}

/** Parses `argv` (without node and the script); undefined when --help was asked for. */
export function parseFsBenchOptions(
  argv: readonly string[],
  defaultOutDir: string,
): FsBenchOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      reps: { type: "string" },
      warmup: { type: "string" },
      scenario: { type: "string" },
      target: { type: "string" },
      mount: { type: "string" },
      quick: { type: "boolean", default: false },
      "disk-dir": { type: "string" },
      "tmpfs-dir": { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    reps: count(values.reps, values.quick ? 1 : 5, "reps", 1),
    warmup: count(values.warmup, values.quick ? 0 : 1, "warmup", 0),
    scenarios: scenarioList(values.scenario),
    targets: targetList(values.target),
    mountVia: mountVia(values.mount),
    diskDir: values["disk-dir"] ?? "/var/tmp",
    tmpfsDir: values["tmpfs-dir"] ?? "/dev/shm",
    outDir: values.out ?? defaultOutDir,
  };
}
