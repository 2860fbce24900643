/**
 * Scenarios beyond the reference that need the whole local fleet (the local Worker + `computerd
 * host` running `computerd serve` with its mount, sync engine and exec; see fleet-run.ts): the
 * post-exec sync fence, the exec round trips and cold starts (fleet-exec-scenarios.ts) and the
 * synced npm install, with BENCH.md's targets. The list can grow: a scenario is a name, what it times, a target and `measure`.
 */
import type { Computer, ComputerClient } from "@computer/sdk";
import type { ComputerdCounters } from "./computerd-counters.ts";
import { assertSynced, containerArrivals, countEntries } from "./fleet-exec.ts";
import { fleetExecScenarios } from "./fleet-exec-scenarios.ts";
import { fleetNpmInstall } from "./fleet-npm-install.ts";
import { type BenchSizes, FULL } from "./sizes.ts";

/** One fence as computerd reported it (`{"event":"fence",...}` on its stdout). */
export interface FenceEvent {
  /** The event's line: unique (the counters only grow), so two events compare by it. */
  key: string;
  ms: number;
  flushMs: number;
  /** Of `ms`, waiting for the Durable Object (its applying plus the round trips). */
  waitedMs: number;
  batches: number;
  changes: number;
  /** computerd's totals at the fence (a computerd too old to tell has none). */
  counters?: ComputerdCounters;
}

/** A fence event's own figures, as a sample's detail. */
export function fenceDetail(fence: FenceEvent): Record<string, number> {
  return {
    computerdFenceMs: fence.ms,
    flushMs: fence.flushMs,
    fenceWaitedMs: fence.waitedMs,
    fenceBatches: fence.batches,
    fenceChanges: fence.changes,
  };
}

/** What a fleet scenario measures with: one warm computer of the fleet. */
export interface FleetContext {
  computer: Computer;
  /** The fleet's admin client, for scenarios that create (and delete) computers of their own. */
  client: ComputerClient;
  /**
   * computerd's fence events for computer `id` (default: `computer`) so far, oldest first. The
   * run adds the difference of the counters of `computer`'s around each repetition to its detail.
   */
  fenceEvents(id?: string): FenceEvent[];
}

/** One timed repetition. */
export interface FleetSample {
  ms: number;
  /** Other numbers of the same repetition (computerd's own fence time, batches, ...). */
  detail: Record<string, number>;
}

/** A fleet scenario. */
export interface FleetScenario {
  name: string;
  id: string;
  /** What is timed. */
  timed: string;
  /** BENCH.md's target for the median, in ms (none where BENCH.md sets none). */
  targetMs?: number;
  /**
   * The shell scenario this one repeats on the whole product (its id): the report shows the
   * ratios to that scenario's tmpfs and disk times of the same run, held to `limitVsDisk`.
   */
  baseline?: string;
  limitVsDisk?: number;
  /** Bash run once on this machine before the repetitions, in a scratch directory (untimed). */
  prepare?: string;
  /** Timed repetitions for the run's --reps. */
  samples(reps: number): number;
  /** Untimed ones for the run's --warmup (default: samples(warmup)). */
  warmups?(warmup: number): number;
  /** One timed repetition; `label` is unique per repetition (for directory names). */
  measure(context: FleetContext, label: string): Promise<FleetSample>;
}

/**
 * A command writing `n` small files then printing "done". The fence is timed from the arrival
 * of "done" to the arrival of the exit event, which the Durable Object sends only once it holds
 * everything the command wrote.
 */
function fenceScenario(n: number, id: string): FleetScenario {
  const count = n.toLocaleString("en-US");
  return {
    name: `sync fence after ${count} files`,
    id,
    timed: `container exec writing ${count} small files: from its last output ("done") until the exit event (the DO holds them all)`,
    targetMs: 2000,
    samples: (reps) => reps,
    async measure({ computer, fenceEvents }, label) {
      const dir = `fence-${n}-${label}`;
      const last = fenceEvents().at(-1)?.key;
      const started = performance.now();
      const { events, metrics } = await containerArrivals(
        computer,
        `mkdir -p ${dir} && cd ${dir} && for i in $(seq 1 ${n}); do echo $i > f$i; done; echo done`,
      );
      const done = events.find((e) => e.type === "stdout" && e.data.includes("done"));
      const exit = events.find((e) => e.type === "exit");
      if (!done || exit?.type !== "exit")
        throw new Error(`unexpected events: ${JSON.stringify(events).slice(0, 500)}`);
      assertSynced(exit.result);
      const listed = await countEntries(computer, dir);
      if (listed !== n) throw new Error(`the Durable Object lists ${listed} of ${n} files in ${dir}`);
      const latest = fenceEvents().at(-1);
      const fence = latest?.key === last ? undefined : latest;
      return {
        ms: exit.at - done.at,
        detail: {
          commandMs: done.at - started,
          ...metrics,
          ...(fence ? fenceDetail(fence) : {}),
        },
      };
    },
  };
}

/** The fleet scenarios at `sizes`, in report order. */
export function fleetScenarios(sizes: BenchSizes): FleetScenario[] {
  return [
    // Ids by BENCH.md's sizes, so --scenario names the same scenario in quick runs.
    fenceScenario(sizes.fences[0], "fence-1000"),
    fenceScenario(sizes.fences[1], "fence-10000"),
    ...fleetExecScenarios(sizes),
    fleetNpmInstall(sizes.npm),
  ];
}

/** The fleet scenarios at BENCH.md's sizes. */
export const FLEET_SCENARIOS: readonly FleetScenario[] = fleetScenarios(FULL);
