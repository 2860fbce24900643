/**
 * `npm run bench:exec`: the exec API's cost per runtime on a fresh local fleet (the local Worker,
 * plus computerd host for the container runtime where this machine can run it). Times the
 * round trip of a trivial program (the first call apart, then p50/p95 over `--runs` warm
 * calls) and 1,000 file operations (shell script, the same as a js module, the container; bash
 * on tmpfs and disk as baselines of the same run), with the RPC counters shell/js report.
 * Prints tables and writes exec-<time>.json into `--out` (default bench/results).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Fleet } from "@computer/fleet";
import { type Computer, ComputerClient } from "@computer/sdk";
import { fleetUnavailable } from "../fs-bench/fleet-run.ts";
import { type Summary, summarize } from "../stats.ts";
import { formatMs, formatRatio, renderTable } from "../table-format.ts";
import { FILES, fileOpsModule, fileOpsScript, TRIVIAL } from "./exec-scenarios.ts";
import { type ExecBenchOptions, parseExecBenchOptions, USAGE } from "./options.ts";
import { ROUND_TRIP, type Runtime, type TimedExec, timedExec } from "./timed-exec.ts";

const DEFAULT_OUT = fileURLToPath(new URL("../../results/", import.meta.url));

/** Round trips of one runtime's trivial program. */
interface RoundTrip {
  runtime: Runtime;
  firstMs: number;
  warm: Summary;
  /** The exec's own durationMs as the DO journals it (commandMs in bench:fs) over the warm calls. */
  server: Summary;
  /** Every warm call in the order it ran: round trip and durationMs (a trend shows a warm-up or a neighbour). */
  samples: { ms: number; commandMs: number }[];
  metrics: Record<string, number>;
  /** The DO's time per step of a container exec over the warm calls, p50 (X-Exec-Metrics `do…Ms`). */
  steps: Record<string, number>;
}

/** 1,000 file operations on one target. */
interface FileOps {
  target: string;
  summary: Summary;
  metrics?: Record<string, number>;
}

function progress(message: string): void {
  process.stderr.write(`exec-bench: ${message}\n`);
}

async function roundTrip(
  computer: Computer,
  runtime: Runtime,
  runs: number,
  warmup: number,
): Promise<RoundTrip> {
  const first = await timedExec(computer, runtime, TRIVIAL[runtime]);
  for (let i = 0; i < warmup; i++) await timedExec(computer, runtime, TRIVIAL[runtime]);
  const warm: TimedExec[] = [];
  for (let i = 0; i < runs; i++) warm.push(await timedExec(computer, runtime, TRIVIAL[runtime]));
  return {
    runtime,
    firstMs: first.ms,
    warm: summarize(warm.map((w) => w.ms)),
    server: summarize(warm.map((w) => w.durationMs)),
    samples: warm.map((w) => ({ ms: w.ms, commandMs: w.durationMs })),
    metrics: warm.at(-1)?.metrics ?? {},
    steps: stepMedians(warm),
  };
}

/** The p50 of each step time (`do…Ms`) the execs' metrics carry. */
function stepMedians(execs: readonly TimedExec[]): Record<string, number> {
  const names = Object.keys(execs.at(-1)?.metrics ?? {}).filter((name) => /^do\w+Ms$/.test(name));
  return Object.fromEntries(
    names.map((name) => [name, summarize(execs.map((e) => e.metrics[name] ?? 0)).median]),
  );
}

async function fileOps(computer: Computer, runtime: Runtime, reps: number): Promise<FileOps> {
  const samples: TimedExec[] = [];
  for (let i = 0; i < reps; i++) {
    const dir = `ops-${i}`;
    samples.push(
      await timedExec(computer, runtime, runtime === "js" ? fileOpsModule(dir) : fileOpsScript(dir)),
    );
  }
  return { target: runtime, summary: summarize(samples.map((s) => s.ms)), metrics: samples.at(-1)?.metrics };
}

function localBash(target: string, base: string, reps: number): FileOps {
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, "exec-bench-"));
  const samples: number[] = [];
  try {
    for (let i = 0; i < reps; i++) {
      const started = performance.now();
      execFileSync("bash", ["-c", fileOpsScript(`ops-${i}`)], { cwd: dir, stdio: "ignore" });
      samples.push(performance.now() - started);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { target, summary: summarize(samples) };
}

function tables(trips: RoundTrip[], ops: FileOps[]): string {
  const tripRows = trips.map((t) => [
    t.runtime,
    formatMs(t.firstMs),
    formatMs(t.warm.median),
    formatMs(t.warm.p95),
    formatMs(t.warm.min),
    formatMs(t.warm.max),
    formatMs(t.server.median),
    String(t.metrics.fsCalls ?? "-"),
  ]);
  const tmpfs = ops.find((o) => o.target === "bash on tmpfs")?.summary.median;
  const opsRows = ops.map((o) => [
    o.target,
    formatMs(o.summary.median),
    formatMs(o.summary.p95),
    ((o.summary.median * 1000) / (FILES * 4)).toFixed(0),
    String(o.metrics?.fsCalls ?? "-"),
    String(o.metrics?.fsOps ?? "-"),
    formatRatio(o.summary.median, tmpfs),
  ]);
  return [
    `Exec round trip of a trivial program (${ROUND_TRIP}; n=${trips[0]?.warm.n ?? 0}):`,
    renderTable(
      ["runtime", "first ms", "p50 ms", "p95 ms", "min", "max", "commandMs p50", "fs RPCs"],
      tripRows,
      1,
    ),
    ...trips
      .filter((t) => Object.keys(t.steps).length > 0)
      .map(
        (t) =>
          `${t.runtime} steps in the DO, p50 ms: ` +
          Object.entries(t.steps)
            .map(([name, ms]) => `${name.replace(/^do|Ms$/g, "").toLowerCase()} ${formatMs(ms)}`)
            .join(", "),
      ),
    "",
    `${FILES * 4} file operations (${FILES} each of write, read, rename, delete; n=${ops[0]?.summary.n ?? 0}):`,
    renderTable(["target", "p50 ms", "p95 ms", "µs/op", "fs RPCs", "fs ops", "vs tmpfs"], opsRows, 1),
  ].join("\n");
}

/** The options, or the exit code when there is nothing to run (--help, a bad option). */
function options(argv: readonly string[]): ExecBenchOptions | number {
  try {
    const parsed = parseExecBenchOptions(argv, DEFAULT_OUT);
    if (parsed) return parsed;
    console.log(USAGE);
    return 0;
  } catch (err) {
    console.error(`exec-bench: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
}

async function main(): Promise<number> {
  const parsed = options(process.argv.slice(2));
  if (typeof parsed === "number") return parsed;
  const { runs, warmup, reps } = parsed;
  const unavailable = parsed.noContainer ? "--no-container" : fleetUnavailable();
  const runtimes: Runtime[] = unavailable === undefined ? ["container", "shell", "js"] : ["shell", "js"];
  if (unavailable !== undefined) progress(`container runtime skipped: ${unavailable}`);
  const startedAt = new Date().toISOString();
  progress("starting the fleet");
  const { startFleet } = await import("@computer/fleet");
  const fleet: Fleet = await startFleet({ computerdHost: unavailable === undefined });
  const stop = () => void fleet.stop().finally(() => process.exit(130));
  process.once("SIGINT", stop);
  const trips: RoundTrip[] = [];
  const ops: FileOps[] = [];
  try {
    for (const runtime of runtimes) {
      const client = new ComputerClient({ url: fleet.url, token: fleet.adminToken });
      const computer = client.computer(`bench-exec-${runtime}`);
      await client.computers.create(computer.id);
      progress(`${runtime}: ${warmup} untimed, then ${runs} round trips`);
      trips.push(await roundTrip(computer, runtime, runs, warmup));
      progress(`${runtime}: ${FILES * 4} file operations × ${reps}`);
      ops.push(await fileOps(computer, runtime, reps));
    }
  } finally {
    process.off("SIGINT", stop);
    await fleet.stop();
  }
  ops.push(
    localBash("bash on tmpfs", parsed.tmpfsDir, reps),
    localBash("bash on disk", parsed.diskDir, reps),
  );
  const document = {
    schema: "computer.exec-bench/1",
    startedAt,
    finishedAt: new Date().toISOString(),
    host: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "", node: process.version },
    options: { runs, warmup, reps, container: unavailable ?? "measured" },
    roundTrips: trips,
    fileOps: ops,
  };
  console.log(tables(trips, ops));
  mkdirSync(parsed.outDir, { recursive: true });
  const out = join(parsed.outDir, `exec-${startedAt.replaceAll(":", "-")}.json`);
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  progress(`wrote ${out}`);
  return 0;
}

process.exitCode = await main();
