/**
 * Fleet scenarios of the whole product beyond the sync fence: the exec round trip of each
 * runtime (timed as bench:exec times it) and the cold start of each runtime (a new computer
 * until its first exec result).
 */
import type { ExecResult, RuntimeName } from "@computer/sdk";
import { TRIVIAL } from "../exec-bench/exec-scenarios.ts";
import { ROUND_TRIP, timedExec, WARM_UP_CALLS } from "../exec-bench/timed-exec.ts";
import { computerdDelta } from "./computerd-counters.ts";
import { assertSynced } from "./fleet-exec.ts";
import type { FleetScenario } from "./fleet-scenarios.ts";
import type { BenchSizes } from "./sizes.ts";

function assertCompleted(result: ExecResult): void {
  if (result.status !== "completed" || result.exitCode !== 0)
    throw new Error(`exec did not complete: ${JSON.stringify(result).slice(0, 500)}`);
}

/**
 * The warm round trip of `runtime`'s trivial program, `perRep` per repetition: the same
 * timedExec as bench:exec's round trips, after the same calls, so the two benchmarks time the
 * same thing: the computer's first exec of the runtime (the run's cold start for the container,
 * the first warm-up otherwise) and WARM_UP_CALLS more, untimed (unless `--warmup 0`).
 */
function roundTrip(runtime: RuntimeName, perRep: number): FleetScenario {
  return {
    name: runtime === "container" ? "exec round trip: true (container)" : `exec round trip: ${runtime}`,
    id: runtime === "container" ? "exec-true-container" : `exec-${runtime}`,
    timed: `{runtime: ${runtime}, source: ${JSON.stringify(TRIVIAL[runtime])}}: ${ROUND_TRIP}`,
    targetMs: runtime === "container" ? 30 : 20,
    samples: (reps) => reps * perRep,
    warmups: (warmup) => (warmup > 0 ? WARM_UP_CALLS + (runtime === "container" ? 0 : 1) : 0),
    async measure({ computer }) {
      const { ms, durationMs, metrics } = await timedExec(computer, runtime, TRIVIAL[runtime]);
      return { ms, detail: { commandMs: durationMs, ...metrics } };
    },
  };
}

/** The untimed pause of the `cold-*-idle` scenarios: an agent's next computer after a moment. */
const IDLE_PAUSE_MS = 1_000;

/**
 * A new computer until its first exec result in `runtime`: PUT, then POST /exec; deleted after.
 * Back to back (the previous repetition's delete, then this PUT), or `idle`: after a pause of
 * IDLE_PAUSE_MS with nothing sent, in which the fleet may warm what it keeps ahead (computerd
 * host's spare daemon, the spare shell isolate: docs/ARCHITECTURE.md).
 */
function coldStart(runtime: RuntimeName, idle = false): FleetScenario {
  const suffix = idle ? "-idle" : "";
  return {
    name: idle ? `cold start after 1 s idle: ${runtime}` : `cold start: ${runtime}`,
    id: `cold-${runtime}${suffix}`,
    timed: `${idle ? `after ${IDLE_PAUSE_MS} ms without a request (untimed), ` : ""}PUT a new computer, then POST /exec {runtime: ${runtime}} of a trivial program until its result`,
    samples: (reps) => reps,
    async measure({ client, fenceEvents }, label) {
      const id = `cold-${runtime}${suffix}-${label}`;
      if (idle) await new Promise((resolve) => setTimeout(resolve, IDLE_PAUSE_MS));
      const started = performance.now();
      await client.computers.create(id);
      const created = performance.now();
      const computer = client.computer(id);
      try {
        const result = await computer.exec.run({ runtime, source: TRIVIAL[runtime] });
        const ms = performance.now() - started;
        if (runtime === "container") assertSynced(result);
        else assertCompleted(result);
        // A new computerd: its counters since it started.
        const fence = runtime === "container" ? fenceEvents(id).at(-1)?.counters : undefined;
        return {
          ms,
          detail: {
            createMs: created - started,
            ...(fence ? computerdDelta(undefined, fence) : {}),
            ...result.metrics,
          },
        };
      } finally {
        await computer.delete();
      }
    },
  };
}

/** The round trips and cold starts; `sizes.roundTrips` warm calls per repetition. */
export function fleetExecScenarios(sizes: BenchSizes): FleetScenario[] {
  return [
    roundTrip("container", sizes.roundTrips),
    roundTrip("shell", sizes.roundTrips),
    roundTrip("js", sizes.roundTrips),
    coldStart("container"),
    coldStart("shell"),
    coldStart("js"),
    coldStart("container", true),
    coldStart("shell", true),
    coldStart("js", true),
  ];
}
