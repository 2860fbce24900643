/**
 * `npm run -w @computer/bench profile-workerd -- [--port N] [--seconds S] [--out FILE]`: a CPU
 * profile of a running fleet's Worker isolate (the Worker and its Durable Objects), taken over
 * its inspector while another bench runs beside it. Without `--port` it finds the one local
 * Worker (@computer/fleet/local-worker, or `wrangler dev`) with `--inspector-port N` running on
 * this machine. Samples for `--seconds`, until
 * Ctrl-C or until the fleet stops, in segments of `--segment` seconds (a fleet that stops takes
 * only its last segment with it), writes the segments' `.cpuprofile` files (Chrome DevTools
 * opens them) and prints the functions with the most self and total time over all of them.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { workerInspectorUrl } from "@computer/fleet/local-worker";
import { wranglerInspectorUrl } from "@computer/fleet/wrangler-dev";
import { type CpuProfile, formatProfile, startProfile, stopProfile } from "./transfer-bench/cpu-profile.ts";
import { connectInspector } from "./transfer-bench/inspector.ts";

const USAGE = `Usage: npm run -w @computer/bench profile-workerd -- [options]

  --port N       the local Worker's --inspector-port (default: the one running here)
  --seconds S    how long to sample (default: until Ctrl-C or the fleet stops)
  --segment S    seconds per profile segment (default 10)
  --interval US  sampling interval in microseconds (default 500)
  --top N        functions listed (default 30)
  --out PREFIX   where the segments go: PREFIX-<n>.cpuprofile (default workerd-<time>)
  --help         this text

  or: profile-workerd -- --summarize FILE.cpuprofile...   the summary of saved profiles`;

/** The inspector WebSockets of the local Workers (and `wrangler dev`s) running here, by port. */
function inspectorUrls(): Map<number, string> {
  const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
  const urls = new Map<number, string>();
  for (const line of ps.split("\n")) {
    const port = Number(/--inspector-port (\d+)/.exec(line)?.[1]);
    if (!port) continue;
    if (line.includes("local-worker-main.ts")) urls.set(port, workerInspectorUrl(port));
    else if (line.includes("wrangler") && line.includes(" dev ")) urls.set(port, wranglerInspectorUrl(port));
  }
  return urls;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      summarize: { type: "boolean", default: false },
      port: { type: "string" },
      seconds: { type: "string" },
      segment: { type: "string" },
      interval: { type: "string" },
      top: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.summarize) {
    const profiles = positionals.map((file) => JSON.parse(readFileSync(file, "utf8")) as CpuProfile);
    console.log(formatProfile(profiles, Number(values.top ?? 30)));
    return 0;
  }
  const running = inspectorUrls();
  let port = values.port === undefined ? undefined : Number(values.port);
  if (port === undefined) {
    const ports = [...running.keys()];
    if (ports.length !== 1) {
      console.error(
        `profile-workerd: ${ports.length} Worker inspectors running (${ports.join(", ")}): pass --port`,
      );
      return 2;
    }
    port = ports[0];
  }
  const inspector = await connectInspector(running.get(Number(port)) ?? workerInspectorUrl(Number(port)));
  if (!inspector) {
    console.error(`profile-workerd: no inspector answered on port ${port}`);
    return 1;
  }
  const interval = Number(values.interval ?? 500);
  const segmentMs = Number(values.segment ?? 10) * 1000;
  const prefix = values.out ?? `workerd-${new Date().toISOString().replaceAll(":", "-")}`;
  let ended = false;
  const end = () => {
    ended = true;
  };
  if (values.seconds !== undefined) setTimeout(end, Number(values.seconds) * 1000);
  process.once("SIGINT", end);
  process.once("SIGTERM", end);
  void inspector.closed.then(end);
  process.stderr.write(`profile-workerd: sampling port ${port} in ${segmentMs / 1000} s segments\n`);
  const profiles: CpuProfile[] = [];
  while (!ended) {
    try {
      await startProfile(inspector, interval);
      const until = Date.now() + segmentMs;
      while (!ended && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      const profile = await stopProfile(inspector);
      writeFileSync(`${prefix}-${profiles.length}.cpuprofile`, JSON.stringify(profile));
      profiles.push(profile);
    } catch {
      break; // The inspector closed mid-segment: that segment is lost, the others stand.
    }
  }
  inspector.close();
  if (profiles.length === 0) {
    console.error("profile-workerd: no complete segment");
    return 1;
  }
  console.log(formatProfile(profiles, Number(values.top ?? 30)));
  process.stderr.write(`profile-workerd: wrote ${profiles.length} segments ${prefix}-*.cpuprofile\n`);
  return 0;
}

process.exitCode = await main();
