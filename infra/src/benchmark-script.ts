/**
 * The shell scripts of the benchmark job: build and save the computerd image on the machine
 * running Pulumi, prepare the folders on the NVMe host, run fs-bench there in the image with
 * bench/compose.yaml, printing the JSON report (and nothing else) on stdout, and render its HTML.
 */
import { composeEnv, composeRunArgs } from "@computer/bench/compose-job";
import { shellQuote } from "./deploy-script.ts";

/** The image tarball's file name on both machines. */
export const IMAGE_TARBALL = "computerd-image.tar.gz";

/**
 * Builds the image with `make image` (offline base, see images/) and saves it gzipped to
 * `tarball`; prints the image reference on stdout.
 */
export function imageSaveScript(repoRoot: string, tarball: string): string {
  const root = shellQuote(repoRoot);
  return [
    "set -eu",
    `tag=$(${root}/images/build-image.sh)`,
    `mkdir -p "$(dirname ${shellQuote(tarball)})"`,
    `docker save "$tag" | gzip -1 > ${shellQuote(tarball)}`,
    `printf '%s' "$tag"`,
  ].join("\n");
}

/** Creates the job's folders on the benchmark host. */
export function benchPrepareScript(workDir: string, diskDir: string): string {
  return ["set -eu", `mkdir -p ${shellQuote(`${workDir}/bench/results`)} ${shellQuote(diskDir)}`].join("\n");
}

/** What the remote run needs. */
export interface BenchRunOptions {
  /** Where the tarball and bench/ were copied. */
  workDir: string;
  /** The NVMe directory: fs-bench's disk target and the mount's state. */
  diskDir: string;
  /** The image reference inside the tarball. */
  image: string;
}

/**
 * Loads the image, runs fs-bench in it with docker compose — the same arguments as `make
 * bench-host` (bench/src/host/compose-job.ts), with the compose plugin or else the standalone
 * docker-compose — and prints the newest report. Everything but the report goes to stderr, so
 * stdout is exactly one JSON document.
 */
export function benchRunScript(options: BenchRunOptions): string {
  const work = shellQuote(options.workDir);
  const env = Object.entries(composeEnv(options.image, options.diskDir)).map(
    ([name, value]) => `${name}=${shellQuote(value)}`,
  );
  return [
    "set -eu",
    `cd ${work}`,
    `gunzip -c ${IMAGE_TARBALL} | docker load >&2`,
    "rm -f bench/results/fs-*.json",
    'if docker compose version >/dev/null 2>&1; then compose="docker compose"; else compose=docker-compose; fi',
    [...env, "$compose", ...composeRunArgs(false).map(shellQuote), ">&2"].join(" "),
    "report=$(ls -t bench/results/fs-*.json | head -n 1)",
    'cat "$report"',
  ].join("\n");
}

/** Renders the report on stdin (one fs-bench JSON) as bench/'s HTML page on stdout, where Pulumi runs. */
export function benchHtmlCommand(repoRoot: string): string {
  return `node ${shellQuote(`${repoRoot}/bench/src/report/render-main.ts`)} - --out -`;
}
