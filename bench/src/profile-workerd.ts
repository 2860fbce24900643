/**
 * `npm run -w @computer/bench profile-workerd -- [--port N] [--seconds S] [--out FILE]`: a CPU
 * profile of a running fleet's Worker isolate (the Worker and its Durable Objects), taken over
 * wrangler dev's inspector while another bench runs beside it. Without `--port` it finds the
 * one `wrangler dev --inspector-port N` running on this machine. Samples for `--seconds` (or
 * until Ctrl-C), writes the `.cpuprofile` (Chrome DevTools opens it) and prints the functions
 * with the most self and total time.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { formatProfile, startProfile, stopProfile } from "./transfer-bench/cpu-profile.ts";
import { connectInspector, wranglerInspectorUrl } from "./transfer-bench/inspector.ts";

const USAGE = `Usage: npm run -w @computer/bench profile-workerd -- [options]

  --port N       wrangler dev's --inspector-port (default: the one wrangler dev running here)
  --seconds S    how long to sample (default: until Ctrl-C)
  --interval US  sampling interval in microseconds (default 500)
  --top N        functions listed (default 30)
  --out FILE     where the .cpuprofile goes (default workerd-<time>.cpuprofile)
  --help         this text`;

/** The inspector ports of the `wrangler dev` processes running here. */
function wranglerInspectorPorts(): number[] {
  const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
  return ps
    .split("\n")
    .filter((line) => line.includes("wrangler") && line.includes(" dev "))
    .map((line) => /--inspector-port (\d+)/.exec(line)?.[1])
    .filter((port): port is string => port !== undefined)
    .map(Number);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      seconds: { type: "string" },
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
  let port = values.port === undefined ? undefined : Number(values.port);
  if (port === undefined) {
    const ports = [...new Set(wranglerInspectorPorts())];
    if (ports.length !== 1) {
      console.error(
        `profile-workerd: ${ports.length} wrangler dev inspectors running (${ports.join(", ")}): pass --port`,
      );
      return 2;
    }
    port = ports[0];
  }
  const inspector = await connectInspector(wranglerInspectorUrl(Number(port)));
  if (!inspector) {
    console.error(`profile-workerd: no inspector answered on port ${port}`);
    return 1;
  }
  await startProfile(inspector, Number(values.interval ?? 500));
  process.stderr.write(
    `profile-workerd: sampling port ${port}${values.seconds ? ` for ${values.seconds} s` : " until Ctrl-C"}\n`,
  );
  await new Promise<void>((resolve) => {
    if (values.seconds !== undefined) setTimeout(resolve, Number(values.seconds) * 1000);
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  const profile = await stopProfile(inspector);
  inspector.close();
  const out = values.out ?? `workerd-${new Date().toISOString().replaceAll(":", "-")}.cpuprofile`;
  writeFileSync(out, JSON.stringify(profile));
  console.log(formatProfile(profile, Number(values.top ?? 30)));
  process.stderr.write(`profile-workerd: wrote ${out}\n`);
  return 0;
}

process.exitCode = await main();
