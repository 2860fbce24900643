/**
 * The fleet's optional benchmark job: builds and saves the computerd image where Pulumi runs,
 * copies it and bench/ (with bench/compose.yaml) to an NVMe host over SSH, runs fs-bench there in
 * the image with docker compose, and puts the JSON report and its HTML page into the fleet's R2 bucket. Re-runs
 * when the image's or the benchmark's sources change.
 */
import { createHash } from "node:crypto";
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import {
  benchHtmlCommand,
  benchPrepareScript,
  benchRunScript,
  IMAGE_TARBALL,
  imageSaveScript,
} from "./benchmark-script.ts";
import { r2PutScript } from "./deploy-script.ts";
import type { BenchmarkInputs } from "./fleet-inputs.ts";
import { BENCH_SOURCES, hashSources, IMAGE_SOURCES } from "./source-hash.ts";

/** What the job needs from the fleet. */
export interface BenchmarkJobOptions {
  benchmark: BenchmarkInputs;
  repoRoot: string;
  /** Command words that run wrangler. */
  wrangler: readonly string[];
  bucketName: pulumi.Input<string>;
  workerName: pulumi.Input<string>;
  /** The deploy environment (account, API token) wrangler's R2 upload runs with. */
  environment: Record<string, pulumi.Input<string>>;
}

/** The job's result. */
export interface BenchmarkJob {
  /** R2 key of the uploaded report (`bench/<worker>/fs-<sha256 prefix>.json`). */
  reportKey: pulumi.Output<string>;
  /** R2 key of its HTML page (the same name with `.html`). */
  htmlKey: pulumi.Output<string>;
}

/**
 * What is copied to `<workDir>/bench`: fs-bench's sources, the npm project its install scenario
 * installs, its package.json and the compose file.
 */
export function benchArchive(benchDir: string): pulumi.asset.AssetArchive {
  return new pulumi.asset.AssetArchive({
    src: new pulumi.asset.FileArchive(`${benchDir}/src`),
    fixtures: new pulumi.asset.FileArchive(`${benchDir}/fixtures`),
    "package.json": new pulumi.asset.FileAsset(`${benchDir}/package.json`),
    "compose.yaml": new pulumi.asset.FileAsset(`${benchDir}/compose.yaml`),
  });
}

/** Declares the job's resources as children of `parent`, named `<name>-bench-*`. */
export function createBenchmarkJob(
  parent: pulumi.Resource,
  name: string,
  options: BenchmarkJobOptions,
): BenchmarkJob {
  const child = { parent };
  const { connection, workDir, diskDir } = options.benchmark;
  const imageHash = hashSources(options.repoRoot, IMAGE_SOURCES);
  const benchHash = hashSources(options.repoRoot, BENCH_SOURCES);
  const tarball = `${options.repoRoot}/images/.cache/${IMAGE_TARBALL}`;

  const image = new command.local.Command(
    `${name}-bench-image`,
    { create: imageSaveScript(options.repoRoot, tarball), dir: options.repoRoot, triggers: [imageHash] },
    child,
  );
  const prepare = new command.remote.Command(
    `${name}-bench-prepare`,
    {
      connection,
      create: pulumi.all([workDir, diskDir]).apply(([work, disk]) => benchPrepareScript(work, disk)),
    },
    child,
  );
  // The tarball exists once the image command ran: the asset is made from its output.
  const imageCopy = new command.remote.CopyToRemote(
    `${name}-bench-image-copy`,
    {
      connection,
      source: image.stdout.apply(() => new pulumi.asset.FileAsset(tarball)),
      remotePath: pulumi.interpolate`${workDir}/${IMAGE_TARBALL}`,
      triggers: [imageHash],
    },
    { ...child, dependsOn: [prepare] },
  );
  const benchDir = `${options.repoRoot}/bench`;
  const sourcesCopy = new command.remote.CopyToRemote(
    `${name}-bench-sources`,
    {
      connection,
      source: benchArchive(benchDir),
      remotePath: pulumi.interpolate`${workDir}/bench`,
      triggers: [benchHash],
    },
    { ...child, dependsOn: [prepare] },
  );
  const run = new command.remote.Command(
    `${name}-bench-run`,
    {
      connection,
      create: pulumi
        .all([workDir, diskDir, image.stdout])
        .apply(([work, disk, tag]) => benchRunScript({ workDir: work, diskDir: disk, image: tag.trim() })),
      triggers: [imageHash, benchHash],
      logging: "stderr",
    },
    { ...child, dependsOn: [imageCopy, sourcesCopy] },
  );
  const reportKey = pulumi
    .all([options.workerName, run.stdout])
    .apply(
      ([worker, report]) =>
        `bench/${worker}/fs-${createHash("sha256").update(report).digest("hex").slice(0, 16)}.json`,
    );
  new command.local.Command(
    `${name}-bench-report`,
    {
      create: pulumi
        .all([options.bucketName, reportKey])
        .apply(([bucket, key]) => r2PutScript(options.wrangler, bucket, key)),
      stdin: run.stdout,
      dir: options.repoRoot,
      environment: options.environment,
      logging: "stderr",
    },
    child,
  );
  // The HTML page is rendered here (bench/'s renderer and chart library), not on the host.
  const htmlKey = reportKey.apply((key) => key.replace(/\.json$/, ".html"));
  new command.local.Command(
    `${name}-bench-html`,
    {
      create: pulumi
        .all([options.bucketName, htmlKey])
        .apply(([bucket, key]) =>
          r2PutScript(options.wrangler, bucket, key, "text/html", benchHtmlCommand(options.repoRoot)),
        ),
      stdin: run.stdout,
      dir: options.repoRoot,
      environment: options.environment,
      logging: "stderr",
    },
    child,
  );
  return { reportKey, htmlKey };
}
