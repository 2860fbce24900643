/**
 * `make bench-host` (`npm run bench:host -- [--quick] [--image REF] [--disk-dir DIR]`): what
 * ComputerFleet's `benchmark` input runs on the NVMe host, here: a docker engine (Debian's
 * dockerd when none answers, images/docker-engine.sh), the computerd image (`make image`, or
 * --image), then fs-bench in it under docker compose (bench/compose.yaml, the arguments of
 * ./compose-job.ts) against the FUSE mount, tmpfs and the disk directory (default /var/tmp here,
 * the NVMe directory there); then the JSON's Markdown, SVG and HTML beside it in bench/results/.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as compose from "docker-compose";
import { $ } from "zx";
import { readRun } from "../report/read-run.ts";
import { writeHtmlReport, writeRunReports } from "../report/write-reports.ts";
import { COMPOSE_FILE, composeEnv, composeRunArgs, FS_BENCH_SERVICE, fsBenchArgs } from "./compose-job.ts";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const RESULTS = join(REPO, "bench", "results");
const USAGE = `Usage: npm run bench:host -- [options]

  --quick          one repetition of each scenario (make test-image runs this)
  --image REF      the computerd image to run (default: build it with images/build-image.sh)
  --disk-dir DIR   the disk bound at /nvme (default /var/tmp/computer-bench/disk)`;

/** `docker compose` (the plugin) where it exists, else the standalone docker-compose (Debian's). */
async function composeExecutable(): Promise<compose.IDockerComposeOptions["executable"]> {
  const plugin = await $({ nothrow: true, quiet: true })`docker compose version`;
  return plugin.exitCode === 0 ? undefined : { standalone: true };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      image: { type: "string" },
      "disk-dir": { type: "string", default: "/var/tmp/computer-bench/disk" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  $.cwd = REPO;
  $.verbose = false;
  await $({ stdio: ["ignore", "inherit", "inherit"] })`images/docker-engine.sh`;
  const image =
    values.image ?? (await $({ stdio: ["ignore", "pipe", "inherit"] })`images/build-image.sh`).stdout.trim();
  const diskDir = values["disk-dir"];
  mkdirSync(diskDir, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  const before = new Set(readdirSync(RESULTS));
  const executable = await composeExecutable();
  console.error(
    `bench-host: ${executable?.standalone ? "docker-compose" : "docker compose"} ${composeRunArgs(values.quick).join(" ")} (image ${image}, disk ${diskDir})`,
  );
  let exitCode = 0;
  try {
    await compose.run(FS_BENCH_SERVICE, fsBenchArgs(values.quick), {
      cwd: REPO,
      config: COMPOSE_FILE,
      commandOptions: ["--rm"],
      executable,
      env: { ...process.env, ...composeEnv(image, diskDir) },
      // fs-bench's table and progress go to the terminal as they come.
      callback: (chunk, source) => (source === "stderr" ? process.stderr : process.stdout).write(chunk),
      maxOutputLength: 0,
    });
  } catch (err) {
    const code = (err as { exitCode?: number | null }).exitCode;
    if (typeof code !== "number") throw err;
    // fs-bench exits 1 when a scenario failed: its JSON says which; still render it.
    console.error(`bench-host: fs-bench exited with ${code}`);
    exitCode = code;
  }
  const written = readdirSync(RESULTS)
    .filter((f) => !before.has(f) && /^fs-.*\.json$/.test(f))
    .sort();
  const json = written.at(-1);
  if (!json) {
    console.error(`bench-host: fs-bench wrote no JSON to ${RESULTS}`);
    return exitCode || 1;
  }
  const path = join(RESULTS, json);
  const doc = readRun(path);
  const reports = writeRunReports(doc, path);
  const html = writeHtmlReport([doc], path.replace(/\.json$/, ".html"));
  for (const file of [path, reports.markdown, reports.svg, html])
    if (file && existsSync(file)) console.log(file);
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench-host: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
