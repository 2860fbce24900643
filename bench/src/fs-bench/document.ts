/**
 * The JSON document of one fs-bench run (bench/results/fs-<timestamp>.json): the machine,
 * kernel and tool versions, the git commit, the options, and every sample of every scenario
 * and target. The reports (bench/src/report/) and the compare gate read only this.
 */
import type { SourceFacts } from "../source-facts.ts";
import type { FleetReport } from "./fleet-run.ts";
import type { FleetScenario } from "./fleet-scenarios.ts";
import type { FsBenchOptions } from "./options.ts";
import type { ReferenceLine } from "./reference.ts";
import type { TARGET_VS_DISK, Verdict } from "./report.ts";
import type { Phases, TargetRun } from "./runner.ts";
import type { TargetId } from "./target.ts";
import type { RunTiming } from "./time-spent.ts";

export const FS_BENCH_SCHEMA = "computer.fs-bench/1";

/** One shell scenario of the document, on every target. */
export interface ScenarioResult {
  name: string;
  id: string;
  kind: string;
  setup?: string;
  run: string;
  error?: string;
  orders: TargetId[][];
  runs: TargetRun[];
  verdict: Verdict;
  /** Wall time of the scenario and where it went (runs before these were recorded have none). */
  elapsedMs?: number;
  phases?: Phases;
  /** The time budget stopped the repetitions after this many. */
  stoppedAfter?: number;
  reference?: ReferenceLine;
}

/** One fleet scenario of the document: its run with the scenario's description in place of it. */
export type FleetResult = Omit<FleetReport["runs"][number], "scenario"> &
  Pick<FleetScenario, "name" | "id" | "timed" | "targetMs" | "baseline" | "limitVsDisk">;

/** The JSON document written to bench/results/fs-<timestamp>.json. */
export interface FsBenchDocument {
  schema: typeof FS_BENCH_SCHEMA;
  startedAt: string;
  finishedAt: string;
  source: SourceFacts & { computerdSrcSha256: { start: string; end: string } };
  host: Record<string, string | number>;
  options: Omit<FsBenchOptions, "outDir" | "scenarios" | "fleet" | "report"> & {
    scenarios: string[];
    fleet: string[];
  };
  targets: { id: TargetId; name: string; root: string; notes: Record<string, unknown>; error?: string }[];
  targetsVsDisk: typeof TARGET_VS_DISK;
  /** Where the run's wall time went outside the scenarios (absent in older runs). */
  timing?: RunTiming;
  results: ScenarioResult[];
  /** Scenarios left out because a command they run is missing here. */
  skipped?: { id: string; name: string; reason: string }[];
  fleet?: Omit<FleetReport, "runs"> & { runs: FleetResult[] };
}
