/**
 * `npm run bench:vfs`: times the vfs scenarios on node:sqlite and inside a Durable Object
 * (workerd), beside node:fs on tmpfs and disk, prints a table and writes one JSON document
 * to bench/results/vfs-<timestamp>.json. Options: see ./options.ts or `-- --help`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fsTarget } from "./fs-target.ts";
import { type BenchOptions, parseOptions, USAGE } from "./options.ts";
import { type BenchDocument, fileTimestamp, formatReport } from "./report.ts";
import { type BackendReport, runTarget, type ScenarioResult } from "./run-bench.ts";
import { sourceFacts, treeHash } from "./source-facts.ts";
import { sqliteTarget } from "./sqlite-target.ts";
import type { BackendId, Target } from "./target.ts";
import { workerdTarget } from "./workerd-target.ts";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DEFAULT_OUT = join(REPO_ROOT, "bench", "results");

function packageVersion(name: string): string {
  try {
    const json = JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")) as {
      version?: string;
    };
    return json.version ?? "unknown";
  } catch {
    return "unknown";
  }
}

function hostFacts(): Record<string, string | number> {
  const cpu = cpus();
  return {
    platform: process.platform,
    arch: process.arch,
    cpuModel: cpu[0]?.model ?? "unknown",
    cpuCount: cpu.length,
    memoryBytes: totalmem(),
    node: process.version,
    sqlite: process.versions.sqlite ?? "unknown",
    wrangler: packageVersion("wrangler"),
    workerd: packageVersion("wrangler/node_modules/workerd"),
  };
}

async function runAll(
  options: BenchOptions,
  results: ScenarioResult[],
  stopping: Set<Target>,
): Promise<BackendReport[]> {
  const reports: BackendReport[] = [];
  // The Durable Object backends bundle vfs/src when they start; starting them first keeps their
  // snapshot as close as possible to the one node:sqlite imported when this process started.
  const runOrder = [...options.backends].sort(
    (a, b) => Number(!isDurableObject(a)) - Number(!isDurableObject(b)),
  );
  for (const id of runOrder) {
    const target = makeTarget(id, options);
    stopping.add(target);
    reports.push(await runTarget(target, options, results));
    stopping.delete(target);
  }
  return reports;
}

function isDurableObject(id: BackendId): boolean {
  return id === "workerd" || id === "wrangler";
}

function makeTarget(id: BackendId, options: BenchOptions): Target {
  switch (id) {
    case "node":
      return sqliteTarget("file", options.diskDir);
    case "memory":
      return sqliteTarget("memory", options.diskDir);
    case "workerd":
    case "wrangler":
      return workerdTarget(id);
    case "tmpfs":
      return fsTarget("tmpfs", options.tmpfsDir);
    case "disk":
      return fsTarget("disk", options.diskDir);
    default:
      return id satisfies never;
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), DEFAULT_OUT);
  if (!options) {
    console.log(USAGE);
    return 0;
  }
  const running = new Set<Target>();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      void Promise.all([...running].map((t) => t.stop())).finally(() => process.exit(130));
    });
  }
  const startedAt = new Date();
  const vfsHashAtStart = treeHash(join(REPO_ROOT, "vfs", "src"));
  const results: ScenarioResult[] = [];
  const backends = await runAll(options, results, running);
  const { outDir, ...recorded } = options;
  const document: BenchDocument = {
    schema: "computer.vfs-bench/1",
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    source: sourceFacts(REPO_ROOT, vfsHashAtStart),
    host: hostFacts(),
    options: recorded,
    backends,
    results,
  };
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `vfs-${fileTimestamp(startedAt)}.json`);
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(formatReport(results, backends));
  if (document.source.vfsSrcSha256.start !== document.source.vfsSrcSha256.end) {
    console.log("\nWARNING: vfs/src changed during the run; backends may have measured different code.");
  }
  console.log(`\nJSON: ${file}`);
  return backends.some((b) => b.error) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
