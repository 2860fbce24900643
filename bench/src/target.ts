/**
 * What the benchmark driver needs from a backend: start it, run one repetition of a scenario
 * in a fresh, empty target, stop it. Implemented by sqlite-target.ts (node:sqlite),
 * workerd-target.ts (a Durable Object under workerd or wrangler dev) and fs-target.ts (baselines).
 */
import type { SqlCounts } from "./counting-sql.ts";
import type { BenchSize, Scenario } from "./scenarios.ts";

/** Every backend the benchmark knows, by command-line name. */
export const BACKEND_IDS = ["node", "memory", "workerd", "wrangler", "tmpfs", "disk"] as const;
export type BackendId = (typeof BACKEND_IDS)[number];

/** One timed repetition. */
export interface Sample {
  /** The scenario's time in milliseconds, as the backend's timing method defines it. */
  ms: number;
  /** Workerd only: the time the Durable Object measured itself (1 ms resolution there). */
  insideMs?: number;
  /** Workerd only: the median empty round trip subtracted from the outside time. */
  baselineMs?: number;
  /** SQL cost of the timed part (vfs backends only). */
  sql?: SqlCounts;
  /** Size of the database after the run (vfs backends only). */
  dbBytes?: number;
}

/** A backend under test. */
export interface Target {
  readonly id: BackendId;
  /** Human name, e.g. "node:sqlite (file)". */
  readonly name: string;
  /** How `Sample.ms` is measured, for the report. */
  readonly timing: string;
  start(): Promise<void>;
  /** Runs setup (untimed), the scenario (timed) and its check (untimed) in a fresh target. */
  runOnce(scenario: Scenario, size: BenchSize, rep: number): Promise<Sample>;
  /** Facts the backend learnt about itself, for the report (e.g. the Durable Object's clock check). */
  notes?(): Record<string, number | string | undefined>;
  /** Releases everything `start` and `runOnce` created. Safe to call more than once. */
  stop(): Promise<void>;
}
