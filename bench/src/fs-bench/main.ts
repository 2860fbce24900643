/**
 * `npm run bench:fs` (or `make bench-fs`): the fs-bench scenarios of docs/BENCH.md as shell
 * commands on the computerd FUSE mount (started here, unmounted at the end), tmpfs and a real
 * disk in one run. Prints a table and writes one JSON document to bench/results/fs-<time>.json.
 * Options: ./options.ts or `-- --help`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { WAKE_HERE_PARAMETER } from "computerd/mount/kernel-wake-here";
import { progressDone, progressScenario, progressStep } from "../progress.ts";
import { fileTimestamp } from "../report.ts";
import { sourceFacts, treeHash } from "../source-facts.ts";
import { FS_BENCH_SCHEMA, type FsBenchDocument } from "./document.ts";
import { type FleetReport, type LaunchedFleet, launchFleet, runFleet } from "./fleet-run.ts";
import { startMountTarget } from "./mount-target.ts";
import { type FsBenchOptions, parseFsBenchOptions, USAGE } from "./options.ts";
import { REFERENCE } from "./reference.ts";
import { formatFsReport, TARGET_VS_DISK, verdictOf } from "./report.ts";
import { type Prepared, prepareAll, runScenario, type ScenarioRun } from "./runner.ts";
import { commandExists, scenarioEnv } from "./shell.ts";
import { directoryTarget, type FsTarget } from "./target.ts";
import { formatTimeSpent, type RunTiming } from "./time-spent.ts";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const DEFAULT_OUT = join(REPO_ROOT, "bench", "results");

function toolVersion(command: string, args: string[]): string {
  try {
    const out = execFileSync(command, args, {
      env: scenarioEnv(),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return out.trim().split("\n")[0] ?? "unknown";
  } catch {
    return "unavailable";
  }
}

/** The 1, 5 and 15 minute load averages: other work on the machine skews every number. */
function load(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
}

/** The kernel's `fuse.wake_here` as the scenarios ran ("absent" where the kernel has none): it moves the round-trip rows. */
function fuseWakeHere(): string {
  try {
    return readFileSync(WAKE_HERE_PARAMETER, "utf8").trim();
  } catch {
    return "absent";
  }
}

function hostFacts(loadAtStart: string): Record<string, string | number> {
  const cpu = cpus();
  return {
    platform: process.platform,
    kernel: release(),
    arch: process.arch,
    cpuModel: cpu[0]?.model ?? "unknown",
    cpuCount: cpu.length,
    memoryBytes: totalmem(),
    benchNode: process.version,
    sqlite: process.versions.sqlite ?? "unknown",
    bash: toolVersion("bash", ["-c", "echo $BASH_VERSION"]),
    git: toolVersion("git", ["--version"]),
    scenarioNode: toolVersion("node", ["--version"]),
    npm: toolVersion("npm", ["--version"]),
    fuseWakeHere: fuseWakeHere(),
    loadAtStart,
    loadAtEnd: load(),
  };
}

/** Starts the targets into `started`; answers how long the mount took to come up. */
async function startTargets(options: FsBenchOptions, started: FsTarget[]): Promise<number | undefined> {
  let mountMs: number | undefined;
  for (const id of options.targets) {
    if (id === "computerd") {
      progressStep(`mounting computerd (${options.mountVia}) under ${options.diskDir}`);
      const t0 = performance.now();
      started.push(await startMountTarget(options.diskDir, options.mountVia));
      mountMs = performance.now() - t0;
    } else started.push(directoryTarget(id, id === "tmpfs" ? options.tmpfsDir : options.diskDir));
  }
  return mountMs;
}

/**
 * The Markdown, SVG and HTML of the run beside its JSON. Loaded only here: the renderers' chart
 * library is not in the computerd image, where fs-bench runs with --no-report.
 */
async function renderReports(document: FsBenchDocument, file: string): Promise<string> {
  try {
    const { writeRunReports, writeHtmlReport } = await import("../report/write-reports.ts");
    const written = writeRunReports(document, file);
    const html = writeHtmlReport([document], file.replace(/\.json$/, ".html"));
    return [
      `Markdown: ${written.markdown}`,
      ...(written.svg ? [`SVG: ${written.svg}`] : []),
      `HTML: ${html}`,
    ].join("\n");
  } catch (err) {
    return `Reports not rendered: ${err instanceof Error ? err.message : String(err)}`;
  }
}

async function main(): Promise<number> {
  const options = parseFsBenchOptions(process.argv.slice(2), DEFAULT_OUT);
  if (!options) {
    console.log(USAGE);
    return 0;
  }
  const targets: FsTarget[] = [];
  const fleetStops: (() => Promise<void>)[] = [];
  const stopAll = () =>
    Promise.allSettled([...targets.map((t) => t.stop()), ...fleetStops.map((stop) => stop())]);
  const abort = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      abort.abort();
      process.stderr.write(`fs-bench: ${signal}, unmounting and cleaning up\n`);
      void stopAll().finally(() => process.exit(130));
    });
  }
  const startedAt = new Date();
  const t0 = performance.now();
  const timing: RunTiming = { totalMs: 0 };
  const loadAtStart = load();
  const vfsStart = treeHash(join(REPO_ROOT, "vfs", "src"));
  const computerdStart = treeHash(join(REPO_ROOT, "computerd", "src"));
  const runs: ScenarioRun[] = [];
  const skipped = options.scenarios.flatMap((s) => {
    const missing = (s.needs ?? []).filter((command) => !commandExists(command));
    return missing.length > 0
      ? [{ id: s.id, name: s.name, reason: `${missing.join(", ")} not installed` }]
      : [];
  });
  const runnable = options.scenarios.filter((s) => !skipped.some((k) => k.id === s.id));
  const total = runnable.length + options.fleet.length;
  let fatal: string | undefined;
  let prepared = new Map<string, Promise<Prepared>>();
  let launched: Promise<LaunchedFleet> | undefined;
  try {
    // Before anything is timed, side by side: the preparations (npm's cache), the fleet's start
    // (the local Worker, computerd host, the root filesystem's first build) and the mount.
    prepared = prepareAll(runnable);
    if (options.fleet.length > 0 && !abort.signal.aborted) {
      progressStep("starting the fleet (the local Worker + computerd host) and the preparations");
      launched = launchFleet();
      void launched.then(({ fleet }) => fleet && fleetStops.push(() => fleet.stop()));
    }
    if (runnable.length > 0) {
      const mountMs = await startTargets(options, targets);
      if (mountMs !== undefined) timing.mountStartMs = mountMs;
    }
    await Promise.all([...prepared.values(), launched]);
    timing.setupMs = performance.now() - t0;
    for (const [i, scenario] of runnable.entries()) {
      if (abort.signal.aborted) break;
      progressScenario(i + 1, total, scenario.name);
      const plan = {
        reps: options.reps,
        warmup: options.warmup,
        budgetMs: options.budgetS * 1000,
        prepared: prepared.get(scenario.id),
        leaveLast: i === runnable.length - 1,
      };
      runs.push(await runScenario(scenario, targets, plan, abort.signal));
    }
  } catch (err) {
    fatal = err instanceof Error ? err.message : String(err);
    process.stderr.write(`fs-bench: ${fatal}\n`);
  } finally {
    // The mount only: the fleet, started beside the preparations, runs next.
    await Promise.allSettled(targets.map((t) => t.stop()));
  }
  if (runnable.length > 0) timing.shellMs = performance.now() - t0;
  // After the mount is gone, so the two do not compete for the machine.
  let fleet: FleetReport | undefined;
  const fleetStarted = performance.now();
  if (options.fleet.length > 0 && !abort.signal.aborted)
    fleet = await runFleet(
      options.fleet,
      { reps: options.reps, warmup: options.warmup, budgetMs: options.budgetS * 1000 },
      abort.signal,
      // Registered when it was launched.
      () => {},
      { first: runnable.length + 1, total },
      launched,
    );
  if (fleet) timing.fleetMs = performance.now() - fleetStarted;
  timing.totalMs = performance.now() - t0;
  progressDone();
  const { outDir, scenarios, fleet: fleetScenarios, report, ...recorded } = options;
  const document: FsBenchDocument = {
    schema: FS_BENCH_SCHEMA,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    source: {
      ...sourceFacts(REPO_ROOT, vfsStart),
      computerdSrcSha256: { start: computerdStart, end: treeHash(join(REPO_ROOT, "computerd", "src")) },
    },
    host: hostFacts(loadAtStart),
    options: {
      ...recorded,
      scenarios: scenarios.map((s) => s.name),
      fleet: fleetScenarios.map((s) => s.name),
    },
    targets: targets.map((t) => ({ id: t.id, name: t.name, root: t.root, notes: t.notes() })),
    targetsVsDisk: TARGET_VS_DISK,
    timing,
    results: runs.map((r) => ({
      name: r.scenario.name,
      id: r.scenario.id,
      kind: r.scenario.kind,
      ...(r.scenario.setup ? { setup: r.scenario.setup } : {}),
      run: r.scenario.run,
      ...(r.error ? { error: r.error } : {}),
      orders: r.orders,
      runs: r.runs,
      verdict: verdictOf(r),
      elapsedMs: r.elapsedMs,
      phases: r.phases,
      ...(r.stoppedAfter === undefined ? {} : { stoppedAfter: r.stoppedAfter }),
      ...(REFERENCE[r.scenario.name] ? { reference: REFERENCE[r.scenario.name] } : {}),
    })),
    ...(skipped.length > 0 ? { skipped } : {}),
  };
  if (fleet) {
    document.fleet = {
      ...fleet,
      runs: fleet.runs.map(({ scenario, ...run }) => ({
        name: scenario.name,
        id: scenario.id,
        timed: scenario.timed,
        targetMs: scenario.targetMs,
        ...(scenario.baseline ? { baseline: scenario.baseline } : {}),
        ...(scenario.limitVsDisk === undefined ? {} : { limitVsDisk: scenario.limitVsDisk }),
        ...run,
      })),
    };
  }
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `fs-${fileTimestamp(startedAt)}.json`);
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(formatFsReport(runs, fleet));
  console.log(`\n${formatTimeSpent(runs, fleet, timing)}`);
  console.log(`\nLoad average (1/5/15 min) at start: ${loadAtStart}; at end: ${document.host.loadAtEnd}.`);
  const { source } = document;
  if (
    source.vfsSrcSha256.start !== source.vfsSrcSha256.end ||
    source.computerdSrcSha256.start !== source.computerdSrcSha256.end
  )
    console.log(
      "\nWARNING: vfs/src or computerd/src changed during the run (the mount loaded the code at its start).",
    );
  for (const k of skipped) console.log(`\nSkipped: ${k.name} (${k.reason}).`);
  if (fatal) console.log(`\nFAILED: ${fatal}`);
  console.log(`\nJSON: ${file}`);
  if (report) console.log(await renderReports(document, file));
  const failed =
    fatal !== undefined ||
    runs.some((r) => r.error || r.runs.some((t) => t.error)) ||
    (fleet !== undefined && (fleet.skipped !== undefined || fleet.runs.some((r) => r.error)));
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
