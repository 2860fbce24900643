/**
 * Where a run's wall time went: per scenario its preparation, setups, timed processes, settles,
 * checks and clean-ups (shell scenarios, summed over targets and repetitions) or its whole time
 * (fleet scenarios), beside the mount's and the fleet's start. What to cut when a run is slow.
 */
import { renderTable } from "../table-format.ts";
import type { FleetReport } from "./fleet-run.ts";
import type { Phases, ScenarioRun } from "./runner.ts";

/** The run's own steps outside the scenarios, in ms. */
export interface RunTiming {
  totalMs: number;
  /** Until the first scenario: the preparations, the fleet's start and the mount's, side by side. */
  setupMs?: number;
  mountStartMs?: number;
  /** From the run's start (the set-up included) to the mount's stop. */
  shellMs?: number;
  /** From the fleet's start to its stop (fleet.startMs is part of it). */
  fleetMs?: number;
}

const PHASES: readonly (keyof Phases)[] = ["prepare", "setup", "run", "settle", "check", "cleanup"];
const seconds = (ms: number | undefined) => (ms === undefined ? "-" : (ms / 1000).toFixed(1));

/** The table of seconds spent, longest scenarios first. */
export function formatTimeSpent(
  shell: readonly ScenarioRun[],
  fleet: FleetReport | undefined,
  run: RunTiming,
): string {
  const rows: [number, string[]][] = shell.map((r) => [
    r.elapsedMs,
    [r.scenario.name, seconds(r.elapsedMs), ...PHASES.map((p) => seconds(r.phases[p]))],
  ]);
  for (const f of fleet?.runs ?? [])
    rows.push([
      f.elapsedMs,
      [`${f.scenario.name} (fleet)`, seconds(f.elapsedMs), seconds(f.prepareMs), "", "", "", "", ""],
    ]);
  rows.sort((a, b) => b[0] - a[0]);
  const steps = [
    `total ${seconds(run.totalMs)} s`,
    run.setupMs === undefined
      ? ""
      : `set-up (preparations, fleet and mount start side by side) ${seconds(run.setupMs)} s`,
    run.mountStartMs === undefined ? "" : `mount start ${seconds(run.mountStartMs)} s`,
    run.shellMs === undefined ? "" : `set-up and shell scenarios ${seconds(run.shellMs)} s`,
    fleet?.startMs === undefined ? "" : `fleet start ${seconds(fleet.startMs)} s`,
    run.fleetMs === undefined ? "" : `fleet scenarios with start and stop ${seconds(run.fleetMs)} s`,
  ].filter((s) => s !== "");
  return [
    "Time spent (s, wall; shell scenarios summed over targets, warm-ups and repetitions; prepare ran in the set-up):",
    renderTable(
      ["scenario", "total", ...PHASES],
      rows.map(([, cells]) => cells),
      1,
    ),
    steps.join("; "),
  ].join("\n");
}
