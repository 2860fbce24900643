/**
 * The example stack (the root Pulumi.yaml's `main`): one ComputerFleet configured from the
 * stack's config (Pulumi.example.yaml lists every key). Its outputs are the fleet's URL, Worker
 * and bucket names, the admin token (secret) and, with a benchmark host, the report's R2 key.
 */
import { type BenchmarkArgs, ComputerFleet, type InstanceType } from "@computer/infra";
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config("computer");
const cloudflareConfig = new pulumi.Config("cloudflare");

const hostname = config.get("customDomain");
const routePattern = config.get("route");
const benchHost = config.get("benchmarkHost");

const benchmark: BenchmarkArgs | undefined =
  benchHost === undefined
    ? undefined
    : {
        host: benchHost,
        user: config.require("benchmarkUser"),
        privateKey: config.requireSecret("benchmarkPrivateKey"),
        port: config.getNumber("benchmarkPort"),
        hostKey: config.get("benchmarkHostKey"),
        diskDir: config.get("benchmarkDiskDir"),
      };

const fleet = new ComputerFleet("computer", {
  accountId: config.require("accountId"),
  // The provider's token, reused for wrangler; without it both read CLOUDFLARE_API_TOKEN.
  apiToken: cloudflareConfig.getSecret("apiToken"),
  workerName: config.get("workerName"),
  bucketName: config.get("bucketName"),
  bucketLocation: config.get("bucketLocation"),
  instanceType: config.get<InstanceType>("instanceType"),
  maxInstances: config.getNumber("maxInstances"),
  containerImage: config.get("containerImage"),
  adminToken: config.getSecret("adminToken"),
  customDomain: hostname === undefined ? undefined : { hostname, zoneId: config.get("zoneId") },
  route: routePattern === undefined ? undefined : { pattern: routePattern, zoneId: config.require("zoneId") },
  workersDevSubdomain: config.get("workersDevSubdomain"),
  benchmark,
});

export const url = fleet.url;
export const workerName = fleet.workerName;
export const bucketName = fleet.bucketName;
export const adminToken = fleet.adminToken;
export const benchmarkReportKey = fleet.benchmarkReportKey;
