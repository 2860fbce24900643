/**
 * Runs the fleet scenarios on a fresh local fleet: the local Worker + `computerd host` (the same
 * as the end-to-end suites: fleet/src/fleet.ts), one computer created for the run, its first
 * exec (the container's cold start) timed apart, then each scenario's warm-ups and timed
 * repetitions. Needs root, /dev/fuse and bubblewrap; otherwise the scenarios are skipped with
 * the reason. The fleet is stopped and its state deleted at the end.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
// Type only: the module itself is loaded when the fleet starts, so a checkout without the
// end-to-end harness (the computerd image) can still run the shell scenarios.
import type { Fleet } from "@computer/fleet";
import { progressLine, progressScenario, progressStep } from "../progress.ts";
import { type Summary, summarize } from "../stats.ts";
import { computerdDelta, isComputerdCounters } from "./computerd-counters.ts";
import { assertSynced, containerExec } from "./fleet-exec.ts";
import type { FenceEvent, FleetContext, FleetSample, FleetScenario } from "./fleet-scenarios.ts";
import { MIN_REPS, prepare, type RepetitionPlan } from "./runner.ts";

/** All repetitions of one fleet scenario. */
export interface FleetRun {
  scenario: FleetScenario;
  samples: FleetSample[];
  summary?: Summary;
  /** Repetitions repeated because the Worker restarted under them (see below). */
  restarts: number;
  /** The scenario's whole wall time (preparation, warm-ups, repetitions), and its preparation's. */
  elapsedMs: number;
  prepareMs: number;
  /** Set when the time budget ended the repetitions early: how many ran. */
  stoppedAfter?: number;
  error?: string;
}

/** How the fleet part went. */
export interface FleetReport {
  runs: FleetRun[];
  /** Why the fleet cannot run on this machine (not a failure: nothing was tried). */
  unavailable?: string;
  /** Why the fleet or its computer failed to start, or what stopped it early. */
  skipped?: string;
  /** Starting the local Worker and computerd host. */
  startMs?: number;
  /** The computer's first exec (`true`): launching its computerd serve, mount and link. */
  coldStartMs?: number;
}

const COMPUTER_ID = "fs-bench";
/**
 * Under FLEET_WRANGLER_DEV=1, wrangler dev reloads the Worker whenever a source file changes
 * (other work in a busy monorepo; the local Worker does not reload): a request in flight fails with the first message, a response already streaming
 * is cut ("terminated", from fetch). Such a repetition is run again, at most MAX_RESTARTS times
 * per scenario, and counted, so a real failure still surfaces.
 */
const RESTARTED = ["Your worker restarted mid-request", "terminated"];
const MAX_RESTARTS = 3;
const WRANGLER = new URL("../../../node_modules/wrangler/bin/wrangler.js", import.meta.url);

/** Whether the fleet harness (workspace @computer/fleet) is installed beside the bench. */
function fleetInstalled(): boolean {
  try {
    import.meta.resolve("@computer/fleet");
    return true;
  } catch {
    return false;
  }
}

/** Why the fleet cannot run here, or undefined. */
export function fleetUnavailable(): string | undefined {
  if (!fleetInstalled() || !existsSync(fileURLToPath(WRANGLER)))
    return "needs the repository's fleet harness and wrangler (@computer/fleet, dev dependencies)";
  if (process.getuid?.() !== 0) return "needs root";
  if (!existsSync("/dev/fuse")) return "needs /dev/fuse";
  try {
    execFileSync("bwrap", ["--version"], { stdio: "ignore" });
  } catch {
    return "needs bubblewrap (bwrap)";
  }
  return undefined;
}

/**
 * computerd's `{"event":"fence",...}` lines for computer `id` in computerd host's output (its
 * last lines only: compare events by `key`, not by count).
 */
function fenceEvents(fleet: Fleet, id: string): FenceEvent[] {
  const prefix = `[${id}] `;
  const events: FenceEvent[] = [];
  for (const line of fleet.hostOutput().split("\n")) {
    const at = line.indexOf(prefix);
    if (at < 0) continue;
    const text = line.slice(at + prefix.length);
    try {
      const event = JSON.parse(text) as Partial<FenceEvent> & { event?: string };
      if (event.event === "fence" && typeof event.ms === "number")
        events.push({
          key: text,
          ms: event.ms,
          flushMs: event.flushMs ?? Number.NaN,
          waitedMs: event.waitedMs ?? Number.NaN,
          batches: event.batches ?? Number.NaN,
          changes: event.changes ?? Number.NaN,
          ...(isComputerdCounters(event.counters) ? { counters: event.counters } : {}),
        });
    } catch {
      // Not an event line.
    }
  }
  return events;
}

/** computerd's counters over `measure`: the difference between the last fences before and after it. */
async function withComputerdCounters(
  context: FleetContext,
  measure: () => Promise<FleetSample>,
): Promise<FleetSample> {
  const before = context.fenceEvents().at(-1);
  const sample = await measure();
  const after = context.fenceEvents().at(-1);
  if (!after?.counters || after.key === before?.key) return sample;
  return { ...sample, detail: { ...computerdDelta(before?.counters, after.counters), ...sample.detail } };
}

async function runOne(
  scenario: FleetScenario,
  context: FleetContext,
  { reps, warmup, budgetMs }: RepetitionPlan,
  signal: AbortSignal | undefined,
): Promise<FleetRun> {
  const started = performance.now();
  const run: FleetRun = { scenario, samples: [], restarts: 0, elapsedMs: 0, prepareMs: 0 };
  try {
    await prepare(scenario.prepare);
  } catch (err) {
    run.error = err instanceof Error ? err.message : String(err);
    progressLine(`${scenario.name}: ${run.error}`);
    run.elapsedMs = run.prepareMs = performance.now() - started;
    return run;
  }
  run.prepareMs = performance.now() - started;
  const warmups = warmup > 0 ? (scenario.warmups ?? scenario.samples)(warmup) : 0;
  const total = warmups + scenario.samples(reps);
  try {
    for (let i = 0; i < total && !signal?.aborted; i++) {
      const label = `${i < warmups ? `w${i}` : `r${i - warmups}`}-${run.restarts}`;
      progressStep(i < warmups ? `warm-up ${i + 1}/${warmups}` : `rep ${i - warmups + 1}/${total - warmups}`);
      let sample: FleetSample;
      try {
        sample = await withComputerdCounters(context, () => scenario.measure(context, label));
      } catch (err) {
        const message = String(err);
        if (!RESTARTED.some((m) => message.includes(m)) || run.restarts >= MAX_RESTARTS) throw err;
        run.restarts++;
        progressLine(`${scenario.name}: ${message.slice(0, 120)}; repeating that repetition`);
        i--;
        continue;
      }
      if (i >= warmups) run.samples.push(sample);
      // As for the shell scenarios (runner.ts): past its budget, a scenario with enough samples stops.
      const done = run.samples.length;
      if (done >= MIN_REPS && i + 1 < total && performance.now() - started > budgetMs) {
        run.stoppedAfter = done;
        break;
      }
    }
    if (run.samples.length > 0) run.summary = summarize(run.samples.map((s) => s.ms));
  } catch (err) {
    run.error = err instanceof Error ? err.message : String(err);
  }
  run.elapsedMs = performance.now() - started;
  progressLine(
    `${scenario.name.padEnd(36)} ${run.error ? `FAILED (${run.error})` : `median ${run.summary?.median.toFixed(1)} ms`} (${(run.elapsedMs / 1000).toFixed(0)} s)`,
  );
  return run;
}

/** A fleet started for the run, or why there is none. */
export interface LaunchedFleet {
  fleet?: Fleet;
  /** Starting the local Worker and computerd host (and the root filesystem's first build). */
  startMs?: number;
  unavailable?: string;
  skipped?: string;
}

/**
 * Starts the fleet the fleet scenarios run on. fs-bench starts it beside the shell scenarios'
 * preparations, before anything is timed, so the two waits overlap; it then sits idle until
 * the shell scenarios are done.
 */
export async function launchFleet(): Promise<LaunchedFleet> {
  const unavailable = fleetUnavailable();
  if (unavailable) return { unavailable };
  const started = performance.now();
  try {
    const { startFleet } = await import("@computer/fleet");
    const fleet = await startFleet({ computerdHost: true });
    return { fleet, startMs: performance.now() - started };
  } catch (err) {
    return { skipped: `the fleet did not start: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * Runs `scenarios` on `launched` (default: a fleet started here), then stops it. `onStop`
 * receives the fleet's stop function as soon as the fleet exists, so an interrupted bench can
 * stop it.
 */
export async function runFleet(
  scenarios: readonly FleetScenario[],
  plan: RepetitionPlan,
  signal: AbortSignal | undefined,
  onStop: (stop: () => Promise<void>) => void,
  /** The first fleet scenario's number among all of the run's scenarios, and their count. */
  position = { first: 1, total: scenarios.length },
  launched?: Promise<LaunchedFleet>,
): Promise<FleetReport> {
  const report: FleetReport = { runs: [] };
  if (scenarios.length === 0) return report;
  if (!launched) progressStep("starting the fleet (the local Worker + computerd host)");
  const { fleet, startMs, unavailable, skipped } = await (launched ?? launchFleet());
  if (!fleet) {
    if (unavailable) report.unavailable = unavailable;
    if (skipped) report.skipped = skipped;
    return report;
  }
  onStop(() => fleet.stop());
  if (startMs !== undefined) report.startMs = startMs;
  try {
    // Loaded here, like the fleet: the computerd image, where fs-bench also runs, has no SDK.
    const { ComputerClient } = await import("@computer/sdk");
    const client = new ComputerClient({ url: fleet.url, token: fleet.adminToken });
    await client.computers.create(COMPUTER_ID);
    const computer = client.computer(COMPUTER_ID);
    const started = performance.now();
    assertSynced(await containerExec(computer, "true"));
    report.coldStartMs = performance.now() - started;
    const context: FleetContext = {
      computer,
      client,
      fenceEvents: (id = COMPUTER_ID) => fenceEvents(fleet, id),
    };
    for (const [i, scenario] of scenarios.entries()) {
      if (signal?.aborted) break;
      progressScenario(position.first + i, position.total, scenario.name);
      report.runs.push(await runOne(scenario, context, plan, signal));
    }
  } catch (err) {
    report.skipped = `the fleet's computer did not come up: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    await fleet.stop();
  }
  return report;
}
