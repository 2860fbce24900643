/**
 * ComputerFleet: one private computer fleet on Cloudflare as a Pulumi component. Cloudflare
 * resources where @pulumi/cloudflare has them (R2 bucket, workers.dev subdomain, custom domain
 * or route); `wrangler deploy` of a generated config from a @pulumi/command resource for what it
 * lacks (the container application with its image, the worker_loader binding), re-run only when
 * the config, the Worker bundle's sources or the image's sources change.
 */
import { fileURLToPath } from "node:url";
import * as cloudflare from "@pulumi/cloudflare";
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import { createBenchmarkJob } from "./benchmark-job.ts";
import { ADMIN_TOKEN_SECRET, deleteWorkerScript, deployScript, workersDevUrl } from "./deploy-script.ts";
import { type ComputerFleetArgs, FLEET_DEFAULTS } from "./fleet-args.ts";
import { fleetInputs } from "./fleet-inputs.ts";
import { BUNDLE_SOURCES, hashSources, IMAGE_SOURCES } from "./source-hash.ts";
import { configHash, deployConfig, readWranglerConfig } from "./wrangler-config.ts";

/** The component's Pulumi type token. */
export const FLEET_TYPE = "computer:index:ComputerFleet";

/** The checkout this module lives in. */
export const DEFAULT_REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** One fleet: the Worker with its Computer Durable Objects and containers, the bucket and the token. */
export class ComputerFleet extends pulumi.ComponentResource {
  /** Where the fleet answers, e.g. `https://computer.example.com`. */
  readonly url: pulumi.Output<string>;
  /** The Worker script's name. */
  readonly workerName: pulumi.Output<string>;
  /** The artifact R2 bucket's name. */
  readonly bucketName: pulumi.Output<string>;
  /** The admin bearer token (secret). */
  readonly adminToken: pulumi.Output<string>;
  /** The R2 key of the benchmark report (JSON), when a benchmark host was given. */
  readonly benchmarkReportKey: pulumi.Output<string | undefined>;
  /** The R2 key of its HTML page (same name, `.html`), when a benchmark host was given. */
  readonly benchmarkReportHtmlKey: pulumi.Output<string | undefined>;

  constructor(name: string, args: ComputerFleetArgs, opts?: pulumi.ComponentResourceOptions) {
    // Checked before anything registers: a bad plain input throws here, creating nothing.
    const inputs = fleetInputs(name, args);
    super(FLEET_TYPE, name, {}, opts);
    const child = { parent: this };
    const repoRoot = args.repoRoot ?? DEFAULT_REPO_ROOT;
    const basePath = `${repoRoot}/worker/wrangler.jsonc`;
    const base = readWranglerConfig(basePath);
    const wrangler = ["node", `${repoRoot}/node_modules/wrangler/bin/wrangler.js`];
    const { accountId, workerName, bucketName, instanceType, maxInstances, workersDev } = inputs;

    const adminToken =
      inputs.adminToken ??
      new random.RandomPassword(
        `${name}-admin-token`,
        { length: FLEET_DEFAULTS.adminTokenLength, special: false },
        child,
      ).result;

    const bucket = new cloudflare.R2Bucket(
      `${name}-artifacts`,
      {
        accountId,
        name: bucketName,
        ...(args.bucketLocation === undefined ? {} : { location: args.bucketLocation }),
      },
      child,
    );

    const config = pulumi
      .all([workerName, accountId, bucket.name, instanceType, maxInstances, workersDev, args.containerImage])
      .apply(([worker, account, bucketId, type, max, dev, image]) =>
        deployConfig(base, {
          basePath,
          workerName: worker,
          accountId: account,
          bucketName: bucketId,
          instanceType: type,
          maxInstances: max,
          workersDev: dev,
          ...(image === undefined ? {} : { image }),
        }),
      );
    // wrangler's account and credentials; the API token, when given, is kept secret.
    const cloudflareEnv: Record<string, pulumi.Input<string>> = {
      CLOUDFLARE_ACCOUNT_ID: accountId,
      WRANGLER_SEND_METRICS: "false",
    };
    if (args.apiToken !== undefined) cloudflareEnv.CLOUDFLARE_API_TOKEN = pulumi.secret(args.apiToken);

    // Owns the Worker's deletion: replaced (deleting the old Worker) only when its name or account
    // changes, never when a deploy re-runs, so redeploying never drops the computers' data.
    const lifecycle = new command.local.Command(
      `${name}-worker-lifecycle`,
      {
        create: "true",
        delete: workerName.apply((worker) => deleteWorkerScript(wrangler, worker)),
        dir: repoRoot,
        environment: cloudflareEnv,
        triggers: [workerName, accountId],
      },
      child,
    );

    const deploy = new command.local.Command(
      `${name}-worker`,
      {
        create: pulumi.all([workerName, config]).apply(([worker, value]) =>
          deployScript({
            wrangler,
            dir: `${repoRoot}/.wrangler/deploy/${worker}`,
            config: JSON.stringify(value, null, 2),
          }),
        ),
        dir: repoRoot,
        environment: { ...cloudflareEnv, [ADMIN_TOKEN_SECRET]: pulumi.secret(adminToken) },
        triggers: [
          config.apply(configHash),
          hashSources(repoRoot, BUNDLE_SOURCES),
          hashSources(repoRoot, IMAGE_SOURCES),
        ],
      },
      { ...child, dependsOn: [bucket, lifecycle] },
    );

    new cloudflare.WorkersScriptSubdomain(
      `${name}-workers-dev`,
      { accountId, scriptName: workerName, enabled: workersDev, previewsEnabled: false },
      { ...child, dependsOn: [deploy] },
    );

    let url: pulumi.Output<string>;
    if (inputs.customDomain !== undefined) {
      const { hostname, zoneId } = inputs.customDomain;
      new cloudflare.WorkersCustomDomain(
        `${name}-domain`,
        { accountId, hostname, service: workerName, ...(zoneId === undefined ? {} : { zoneId }) },
        { ...child, dependsOn: [deploy] },
      );
      url = pulumi.interpolate`https://${hostname}`;
    } else if (inputs.route !== undefined) {
      const { pattern, zoneId } = inputs.route;
      new cloudflare.WorkersRoute(
        `${name}-route`,
        { zoneId, pattern, script: workerName },
        { ...child, dependsOn: [deploy] },
      );
      url = pattern.apply((value) => `https://${value.replace(/^\*\.?/, "").replace(/\/\*?$/, "")}`);
    } else {
      url = pulumi
        .all([workerName, args.workersDevSubdomain, deploy.stdout])
        .apply(([worker, subdomain, stdout]) =>
          subdomain === undefined
            ? (workersDevUrl(stdout) ?? "")
            : `https://${worker}.${subdomain}.workers.dev`,
        );
    }

    const bench =
      inputs.benchmark === undefined
        ? undefined
        : createBenchmarkJob(this, name, {
            benchmark: inputs.benchmark,
            repoRoot,
            wrangler,
            bucketName: bucket.name,
            workerName,
            environment: cloudflareEnv,
          });
    this.benchmarkReportKey = bench?.reportKey ?? pulumi.output(undefined);
    this.benchmarkReportHtmlKey = bench?.htmlKey ?? pulumi.output(undefined);

    this.url = url;
    this.workerName = workerName;
    this.bucketName = bucket.name;
    this.adminToken = pulumi.secret(adminToken);
    this.registerOutputs({
      url: this.url,
      workerName: this.workerName,
      bucketName: this.bucketName,
      adminToken: this.adminToken,
      benchmarkReportKey: this.benchmarkReportKey,
      benchmarkReportHtmlKey: this.benchmarkReportHtmlKey,
    });
  }
}
