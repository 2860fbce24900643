/**
 * Scenarios beyond the reference that need the whole local fleet (`wrangler dev` + `computerd
 * host` running `computerd serve` with its mount, sync engine and exec; see test/e2e/fleet.ts
 * and scripts/computerd-host.ts): the post-exec sync fence and the exec round trip of the
 * container runtime. Each is listed with what it would time and BENCH.md's target; one that
 * cannot run yet carries the reason, and the report shows it as pending. Add a `measure` when
 * the fleet can do it.
 */

/** What a fleet scenario gets to measure with: the Worker's API of one fresh computer. */
export interface FleetApi {
  /** POST /v1/computers/:id/exec; resolves with the result document and the client's wall time. */
  exec(source: string, runtime: "container" | "shell" | "js"): Promise<{ result: unknown; wallMs: number }>;
}

/** A fleet scenario. */
export interface FleetScenario {
  name: string;
  id: string;
  /** What is timed. */
  timed: string;
  /** BENCH.md's target, in ms. */
  targetMs: number;
  /** Why it does not run yet (absent once `measure` exists and its preconditions hold). */
  pending?: string;
  /** One timed repetition, in ms. */
  measure?: (api: FleetApi) => Promise<number>;
}

/**
 * `computerd serve` answers every sync call with "sync is not available on this daemon" until
 * its sync engine (DaemonSync) is plugged in, so the container runtime's push fails before any
 * command runs (test/e2e/container.test.ts skips its data tests for the same reason).
 */
const NEEDS_SERVE_SYNC = "pending: computerd serve has no sync engine yet (the container exec's push fails)";

/** The fleet scenarios, in report order. */
export const FLEET_SCENARIOS: readonly FleetScenario[] = [
  {
    name: "sync fence after 1,000 files",
    id: "fence-1000",
    timed: "a container exec writing 1,000 small files: from the command's exit until the DO holds them all",
    targetMs: 2000,
    pending: NEEDS_SERVE_SYNC,
  },
  {
    name: "sync fence after 10,000 files",
    id: "fence-10000",
    timed: "a container exec writing 10,000 small files: from the command's exit until the DO holds them all",
    targetMs: 2000,
    pending: NEEDS_SERVE_SYNC,
  },
  {
    name: "exec round trip: true (container)",
    id: "exec-true-container",
    timed: "POST /exec {runtime: container, source: true} until the result, warm",
    targetMs: 30,
    pending: NEEDS_SERVE_SYNC,
  },
];
