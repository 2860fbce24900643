/** Command-line options of fs-bench (`npm run bench:fs -- --help`). */

import { parseArgs } from "node:util";
import { countOption } from "../count-option.ts";
import { FLEET_SCENARIOS, type FleetScenario, fleetScenarios } from "./fleet-scenarios.ts";
import type { MountVia } from "./mount-target.ts";
import { findScenario, SCENARIOS, type ShellScenario, shellScenarios } from "./scenarios.ts";
import { FULL, QUICK } from "./sizes.ts";
import { TARGET_IDS, type TargetId } from "./target.ts";

/** The resolved options of one run. */
export interface FsBenchOptions {
  /** How much work each scenario does (sizes.ts): BENCH.md's, or --quick's fifth of it. */
  size: "full" | "quick";
  reps: number;
  warmup: number;
  /** Seconds after which a scenario starts no more repetitions (runner.ts). */
  budgetS: number;
  scenarios: ShellScenario[];
  /** Fleet scenarios (fleet-scenarios.ts): run after the shell scenarios, on a local fleet. */
  fleet: FleetScenario[];
  targets: TargetId[];
  mountVia: MountVia;
  /** Real-disk parent: the disk target's directories and the mount's state dir and mount point. */
  diskDir: string;
  tmpfsDir: string;
  outDir: string;
  /** Render the Markdown, SVG and HTML reports beside the JSON (off where only JSON is wanted: the image). */
  report: boolean;
}

/** A scenario's time budget: the slowest one's (stat 1000 files) warm-up and 4 repetitions on a quiet machine. */
const DEFAULT_BUDGET_S = 60;

export const USAGE = `Usage: npm run bench:fs -- [options]

  --reps N          timed repetitions per scenario and target (default 5; --quick: 1)
  --warmup N        untimed repetitions before them (default 1; --quick: 0)
  --budget S        a scenario that has run S seconds (default 60) starts no more
                    repetitions (it has 1 at least): fewer samples of the slowest scenarios
                    on a slow or busy machine instead of a run several times as long
  --scenario LIST   comma-separated ids or names (default: all), in BENCH.md order:
                    ${SCENARIOS.map((s) => s.id).join(", ")}
                    and on the local fleet (the local Worker + computerd host):
                    ${FLEET_SCENARIOS.map((s) => s.id).join(", ")}
  --no-fleet        leave the fleet scenarios out
  --target LIST     comma-separated: ${TARGET_IDS.join(", ")} (default: all three)
  --mount HOW       driver (default): the computerd mount code with a counters/fence channel;
                    cli: \`computerd mount\` itself (no per-run counters; settle = 250 ms pause)
  --quick           CI's smoke pass: every scenario once (1 repetition, no warm-up) with
                    about a fifth of the work (200 files, 16 MiB, an 81-package npm install;
                    the names say the sizes)
  --disk-dir DIR    the real disk: disk target and the mount's state dir (default /var/tmp)
  --tmpfs-dir DIR   the tmpfs target (default /dev/shm)
  --out DIR         where the JSON document goes (default bench/results)
  --no-report       write only the JSON (default: also fs-<time>.md, .svg and .html beside it)
  --help            this text`;

function scenarioList(
  value: string | undefined,
  shellAll: readonly ShellScenario[],
  fleetAll: readonly FleetScenario[],
): { shell: ShellScenario[]; fleet: FleetScenario[] } {
  if (value === undefined) return { shell: [...shellAll], fleet: [...fleetAll] };
  const shell = new Set<ShellScenario>();
  const fleet = new Set<FleetScenario>();
  for (const name of value.split(",").map((s) => s.trim())) {
    const scenario = findScenario(name, shellAll);
    const onFleet = fleetAll.find((s) => s.id === name || s.name === name);
    if (scenario) shell.add(scenario);
    else if (onFleet) fleet.add(onFleet);
    else {
      const known = [...shellAll, ...fleetAll].map((s) => s.id).join(", ");
      throw new Error(`unknown scenario "${name}" (known: ${known})`);
    }
  }
  return { shell: shellAll.filter((s) => shell.has(s)), fleet: fleetAll.filter((s) => fleet.has(s)) };
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
      budget: { type: "string" },
      scenario: { type: "string" },
      target: { type: "string" },
      mount: { type: "string" },
      quick: { type: "boolean", default: false },
      fleet: { type: "boolean", default: true },
      "disk-dir": { type: "string" },
      "tmpfs-dir": { type: "string" },
      out: { type: "string" },
      report: { type: "boolean", default: true },
      help: { type: "boolean", default: false },
    },
    strict: true,
    allowNegative: true,
  });
  if (values.help) return undefined;
  const sizes = values.quick ? QUICK : FULL;
  const selected = scenarioList(values.scenario, shellScenarios(sizes), fleetScenarios(sizes));
  return {
    size: values.quick ? "quick" : "full",
    reps: countOption(values.reps, values.quick ? 1 : 5, "reps", 1),
    warmup: countOption(values.warmup, values.quick ? 0 : 1, "warmup", 0),
    budgetS: countOption(values.budget, DEFAULT_BUDGET_S, "budget", 1),
    scenarios: selected.shell,
    fleet: values.fleet ? selected.fleet : [],
    targets: targetList(values.target),
    mountVia: mountVia(values.mount),
    diskDir: values["disk-dir"] ?? "/var/tmp",
    tmpfsDir: values["tmpfs-dir"] ?? "/dev/shm",
    outDir: values.out ?? defaultOutDir,
    report: values.report,
  };
}
