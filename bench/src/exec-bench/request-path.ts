/**
 * `npm run -w @computer/bench request-path -- [--calls N]`: what the local fleet's request
 * path costs, the Worker under `wrangler dev` against the local Worker (its deploy bundle under
 * Miniflare, no proxy in front: @computer/fleet/local-worker). Both fleets run at once (with
 * computerd host where the container runtime can run here), and each request goes to one and
 * then the other, the order swapped every call, so a loaded machine slows both alike:
 * `GET /healthz` (the Worker only), `GET /v1/computers/:id` (Worker + DO) and the three
 * runtimes' trivial exec (timedExec, after the same warm-up as bench:exec). Prints medians,
 * with the execs' own durationMs, which the path does not touch.
 */
import { parseArgs } from "node:util";
import type { Fleet } from "@computer/fleet";
import { ComputerClient } from "@computer/sdk";
import { countOption } from "../count-option.ts";
import { fleetUnavailable } from "../fs-bench/fleet-run.ts";
import { summarize } from "../stats.ts";
import { formatMs, renderTable } from "../table-format.ts";
import { TRIVIAL } from "./exec-scenarios.ts";
import { type Runtime, timedExec, WARM_UP_CALLS } from "./timed-exec.ts";

const WORKERS = ["wrangler-dev", "local"] as const;
type Worker = (typeof WORKERS)[number];
type Request = "healthz" | "get" | Runtime;

const { values } = parseArgs({ options: { calls: { type: "string" } }, strict: true });
const calls = countOption(values.calls, 60, "calls");
const unavailable = fleetUnavailable();
const requests: Request[] = ["healthz", "get", ...(unavailable ? [] : ["container" as const]), "shell", "js"];
if (unavailable) console.error(`request-path: container runtime skipped: ${unavailable}`);

const { startFleet } = await import("@computer/fleet");
const fleets = new Map<Worker, { fleet: Fleet; client: ComputerClient }>();
try {
  for (const worker of WORKERS) {
    const fleet = await startFleet({ computerdHost: !unavailable, worker });
    fleets.set(worker, { fleet, client: new ComputerClient({ url: fleet.url, token: fleet.adminToken }) });
  }
  const send = async (worker: Worker, request: Request): Promise<{ ms: number; durationMs?: number }> => {
    const { fleet, client } = fleets.get(worker) as { fleet: Fleet; client: ComputerClient };
    if (request === "healthz" || request === "get") {
      const started = performance.now();
      const path = request === "healthz" ? "/healthz" : "/v1/computers/path";
      const res = await fetch(`${fleet.url}${path}`, {
        headers: { authorization: `Bearer ${fleet.adminToken}` },
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${worker}: ${path} answered ${res.status}`);
      return { ms: performance.now() - started };
    }
    const { ms, durationMs } = await timedExec(client.computer("path"), request, TRIVIAL[request]);
    return { ms, durationMs };
  };
  for (const [worker, { client }] of fleets) {
    await client.computers.create("path");
    for (const request of requests) for (let i = 0; i <= WARM_UP_CALLS; i++) await send(worker, request);
  }
  const samples = new Map<string, { ms: number; durationMs?: number }[]>();
  for (let i = 0; i < calls; i++) {
    for (const request of requests) {
      for (const worker of i % 2 === 0 ? WORKERS : [...WORKERS].reverse()) {
        const key = `${request}\t${worker}`;
        samples.set(key, [...(samples.get(key) ?? []), await send(worker, request)]);
      }
    }
  }
  const rows = [...samples].map(([key, got]) => {
    const [request, worker] = key.split("\t");
    const own = got.flatMap((s) => (s.durationMs === undefined ? [] : [s.durationMs]));
    return [
      request ?? "",
      worker ?? "",
      formatMs(summarize(got.map((s) => s.ms)).median),
      own.length ? formatMs(summarize(own).median) : "-",
    ];
  });
  console.log(`Request path, ${calls} calls each, alternating (p50, ms):`);
  console.log(renderTable(["request", "served by", "p50 ms", "durationMs p50"], rows, 2));
} finally {
  for (const { fleet } of fleets.values()) await fleet.stop();
}
