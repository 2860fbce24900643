/**
 * The fs-bench loop: for each scenario, its one-off preparation, then warm-up and timed
 * repetitions on every target, the targets' order rotating from one repetition to the next so
 * no target always runs first (or right after a heavy one). One repetition: a fresh directory,
 * setup + settle (untimed), the timed run, counters, settle (the mount's fence, timed apart),
 * the check; the directory is removed (and settled) before the target's next repetition. A
 * scenario with `shareSetup` runs all its repetitions on a target in one directory set up once.
 * A target that fails a scenario skips the rest of it.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { progressLine, progressStep } from "../progress.ts";
import { type Summary, summarize } from "../stats.ts";
import { CHECK_PRELUDE, type ShellScenario } from "./scenarios.ts";
import { describeFailure, runShell } from "./shell.ts";
import { counterDelta, type FsTarget, type MountCounters, type TargetId } from "./target.ts";

/** One timed repetition on one target. */
export interface Sample {
  /** The timed part, as bash measured it. */
  ms: number;
  /** The bash process of the timed part, spawn to exit. */
  wallMs: number;
  /** Settling after the timed part: the mount's fence, or syncfs. */
  settleMs: number;
  /** Mount only: counters of the timed part (FUSE ops reach the daemon only while the run runs). */
  timed?: MountCounters;
  /** Mount only: counters from before the run until the fence after it returned. */
  withFence?: MountCounters;
}

/** All repetitions of one scenario on one target. */
export interface TargetRun {
  target: TargetId;
  samples: Sample[];
  summary?: Summary;
  settle?: Summary;
  /** What went wrong, naming the step (setup, run, check) and what the shell said. */
  error?: string;
}

/** Where a scenario's wall time went, in ms, summed over its warm-ups, repetitions and targets. */
export interface Phases {
  prepare: number;
  setup: number;
  /** The timed bash processes, spawn to exit. */
  run: number;
  settle: number;
  check: number;
  /** Removing the repetitions' directories. */
  cleanup: number;
}

/** One scenario on every target. */
export interface ScenarioRun {
  scenario: ShellScenario;
  runs: TargetRun[];
  /** The target order of each timed repetition. */
  orders: TargetId[][];
  /** The scenario's whole wall time, preparation included, and how it divides. */
  elapsedMs: number;
  phases: Phases;
  /** Set when the time budget ended the repetitions early: how many ran. */
  stoppedAfter?: number;
  /** Set when the one-off preparation failed (then nothing ran). */
  error?: string;
}

/** Adds the wall time of `work` to `phases[phase]`. */
async function timedPhase<T>(phases: Phases, phase: keyof Phases, work: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    phases[phase] += performance.now() - started;
  }
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const n = items.length;
  return items.map((_, i) => items[(i + by) % n] as T);
}

async function step(what: string, body: string, dir: string): Promise<void> {
  const result = await runShell(body, dir);
  if (result.exitCode !== 0) throw new Error(describeFailure(what, result));
}

/**
 * One repetition of `scenario` on `target` in `dir`: made and set up first when `fresh` (a
 * scenario that shares its setup runs again in the directory of its first repetition).
 */
async function runOnce(
  target: FsTarget,
  scenario: ShellScenario,
  dir: string,
  fresh: boolean,
  phases: Phases,
): Promise<Sample> {
  if (fresh) mkdirSync(dir);
  const { setup } = scenario;
  if (setup && fresh)
    await timedPhase(phases, "setup", async () => {
      await step("setup", setup, dir);
      await target.settle(dir);
    });
  const before = await target.counters();
  const run = await timedPhase(phases, "run", () => runShell(scenario.run, dir, { timed: true }));
  if (run.exitCode !== 0 || run.timedMs === undefined) throw new Error(describeFailure("run", run));
  const afterRun = await target.counters();
  const settled = await timedPhase(phases, "settle", () => target.settle(dir));
  await timedPhase(phases, "check", () => step("check", `${CHECK_PRELUDE}\n${scenario.check}`, dir));
  const sample: Sample = { ms: run.timedMs, wallMs: run.wallMs, settleMs: settled.ms };
  if (before && afterRun) sample.timed = counterDelta(before, afterRun);
  if (before && settled.counters) sample.withFence = counterDelta(before, settled.counters);
  return sample;
}

/** Removes a repetition's directory, then settles, so the next repetition does not pay for it. */
async function cleanup(target: FsTarget, dir: string, phases: Phases): Promise<void> {
  await timedPhase(phases, "cleanup", async () => {
    rmSync(dir, { recursive: true, force: true });
    await target.settle(target.root);
  });
}

/** Runs a scenario's one-off preparation `script` in a scratch directory (removed after). */
export async function prepare(script: string | undefined): Promise<void> {
  if (!script) return;
  const scratch = mkdtempSync(join(tmpdir(), "computer-fs-bench-prepare-"));
  try {
    await step("prepare", script, scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** How often a scenario runs. */
export interface RepetitionPlan {
  /** Timed repetitions (at most: see budgetMs). */
  reps: number;
  /** Untimed ones before them. */
  warmup: number;
  /**
   * Once a scenario has run this long (warm-ups included) and has MIN_REPS timed repetitions,
   * it starts no more: slow scenarios on a slow (or busy) machine get fewer samples instead of
   * making the run several times as long. On a quiet machine every scenario gets 3 or more,
   * what the compare gate needs to judge it. Infinity: always `reps`.
   */
  budgetMs: number;
  /** The scenario's preparation, started already (prepareAll); else it is run first. */
  prepared?: Promise<Prepared>;
  /**
   * The run's last scenario on these targets: its last directories are left for the targets'
   * stop, which removes them whole (the mount: its state directory) — minutes for the 27,000
   * files of the npm install on the mount, one by one.
   */
  leaveLast?: boolean;
}

/** How a preparation went. */
export interface Prepared {
  ms: number;
  error?: string;
}

/**
 * Starts the preparations of `scenarios` (npm's cache, ...: network and disk, nothing timed)
 * at once, side by side, so a run waits for the longest instead of their sum.
 */
export function prepareAll(scenarios: readonly ShellScenario[]): Map<string, Promise<Prepared>> {
  const started = new Map<string, Promise<Prepared>>();
  for (const scenario of scenarios) {
    if (!scenario.prepare) continue;
    const t0 = performance.now();
    started.set(
      scenario.id,
      prepare(scenario.prepare).then(
        () => ({ ms: performance.now() - t0 }),
        (err: unknown) => ({
          ms: performance.now() - t0,
          error: err instanceof Error ? err.message : String(err),
        }),
      ),
    );
  }
  return started;
}

/** The fewest timed repetitions the budget leaves. */
export const MIN_REPS = 1;

/**
 * Runs `scenario` on `targets`: `plan.warmup` untimed and up to `plan.reps` timed repetitions
 * each. Once `signal` aborts, no further repetition starts and failures are no longer recorded.
 */
export async function runScenario(
  scenario: ShellScenario,
  targets: readonly FsTarget[],
  plan: RepetitionPlan,
  signal?: AbortSignal,
): Promise<ScenarioRun> {
  let { reps, warmup } = plan;
  const started = performance.now();
  const runs = new Map<TargetId, TargetRun>(targets.map((t) => [t.id, { target: t.id, samples: [] }]));
  const phases: Phases = { prepare: 0, setup: 0, run: 0, settle: 0, check: 0, cleanup: 0 };
  const result: ScenarioRun = { scenario, runs: [...runs.values()], orders: [], elapsedMs: 0, phases };
  try {
    if (plan.prepared) {
      const prepared = await plan.prepared;
      phases.prepare = prepared.ms;
      if (prepared.error) throw new Error(prepared.error);
    } else await timedPhase(phases, "prepare", () => prepare(scenario.prepare));
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
    for (const run of runs.values()) run.error = `not run: ${result.error}`;
    progressLine(`${scenario.name}: ${result.error}`);
    result.elapsedMs = performance.now() - started;
    return result;
  }
  // A heavy scenario (the real npm install) runs fewer times than the light ones.
  reps = Math.min(reps, scenario.maxReps ?? reps);
  warmup = Math.min(warmup, scenario.maxWarmup ?? warmup);
  // Each target's last directory, removed before its next repetition (or at the end); with
  // shareSetup, the one directory all repetitions on the target run in.
  const left = new Map<TargetId, string>();
  for (let i = 0; i < warmup + reps; i++) {
    const timed = i >= warmup;
    const order = rotate(targets, i);
    if (timed) result.orders.push(order.map((t) => t.id));
    for (const target of order) {
      const run = runs.get(target.id);
      if (!run || run.error || signal?.aborted) continue;
      progressStep(
        `${target.id} · ${timed ? `rep ${i - warmup + 1}/${reps}` : `warm-up ${i + 1}/${warmup}`}`,
      );
      let dir = left.get(target.id);
      const fresh = dir === undefined || !scenario.shareSetup;
      if (dir !== undefined && fresh) await cleanup(target, dir, phases);
      if (fresh) dir = join(target.root, `${scenario.id}-${timed ? `r${i - warmup}` : `w${i}`}`);
      if (dir === undefined) continue;
      left.set(target.id, dir);
      try {
        const sample = await runOnce(target, scenario, dir, fresh, phases);
        if (timed) run.samples.push(sample);
      } catch (err) {
        await cleanup(target, dir, phases);
        left.delete(target.id);
        if (signal?.aborted) break;
        const what = timed ? `repetition ${i - warmup + 1}` : `warm-up ${i + 1}`;
        run.error = `${what}: ${err instanceof Error ? err.message : String(err)}`;
        progressLine(`${scenario.name} on ${target.id} FAILED (${run.error})`);
      }
    }
    const done = i - warmup + 1;
    if (timed && done >= MIN_REPS && done < reps && performance.now() - started > plan.budgetMs) {
      result.stoppedAfter = done;
      break;
    }
  }
  if (!plan.leaveLast)
    for (const target of targets) {
      const dir = left.get(target.id);
      if (dir !== undefined) await cleanup(target, dir, phases);
    }
  for (const run of runs.values()) {
    if (run.samples.length === 0) continue;
    run.summary = summarize(run.samples.map((s) => s.ms));
    run.settle = summarize(run.samples.map((s) => s.settleMs));
  }
  result.elapsedMs = performance.now() - started;
  const line = result.runs
    .map((r) => `${r.target} ${r.summary ? `${r.summary.median.toFixed(1)} ms` : "FAILED"}`)
    .join(", ");
  progressLine(`${scenario.name.padEnd(28)} ${line} (${(result.elapsedMs / 1000).toFixed(0)} s)`);
  return result;
}
