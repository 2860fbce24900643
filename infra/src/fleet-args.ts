/**
 * The inputs of ComputerFleet and their defaults. Every field is a `pulumi.Input`, so a stack can
 * pass config values, secrets or other resources' outputs; the component validates each one as
 * it resolves (./validate.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { InstanceType } from "./validate.ts";

/** A custom domain for the Worker (Cloudflare creates its DNS record and certificate). */
export interface CustomDomainArgs {
  /** e.g. `computer.example.com`; its zone must be in the same account. */
  hostname: pulumi.Input<string>;
  /** The zone's id; found from the hostname when omitted. */
  zoneId?: pulumi.Input<string>;
}

/** A route on an existing zone instead of a custom domain (e.g. `example.com/computer/*`). */
export interface RouteArgs {
  pattern: pulumi.Input<string>;
  zoneId: pulumi.Input<string>;
}

/** The NVMe host the benchmark job runs on, over SSH. */
export interface BenchmarkArgs {
  /** Host name or IP address. */
  host: pulumi.Input<string>;
  /** SSH user; must be able to run `docker` (and `docker compose`). */
  user: pulumi.Input<string>;
  /** SSH private key (PEM or OpenSSH). Pass a secret. */
  privateKey: pulumi.Input<string>;
  /** SSH port (default 22). */
  port?: pulumi.Input<number>;
  /** The host's public key, to pin it; without it any host key is accepted. */
  hostKey?: pulumi.Input<string>;
  /** Where the job's files go on the host (default `/var/tmp/computer-bench`). */
  workDir?: pulumi.Input<string>;
  /** A directory on the NVMe disk: fs-bench's disk target (default `<workDir>/disk`). */
  diskDir?: pulumi.Input<string>;
}

/** The inputs of one fleet. */
export interface ComputerFleetArgs {
  /** The Cloudflare account (32 hex digits). */
  accountId: pulumi.Input<string>;
  /** API token wrangler deploys with; default: CLOUDFLARE_API_TOKEN of the environment. Pass a secret. */
  apiToken?: pulumi.Input<string>;
  /** The Worker's name (default: the component's name). Renaming deletes the old Worker and its computers. */
  workerName?: pulumi.Input<string>;
  /** The artifact bucket's name (default `<workerName>-artifacts`). */
  bucketName?: pulumi.Input<string>;
  /** R2 location hint for the bucket (`wnam`, `enam`, `weur`, `eeur`, `apac`, `oc`). */
  bucketLocation?: pulumi.Input<string>;
  /** Container instance type (default `standard-1`). */
  instanceType?: pulumi.Input<InstanceType>;
  /** Most containers running at once (default 20). */
  maxInstances?: pulumi.Input<number>;
  /**
   * A prebuilt computerd image in a registry the account can pull from. Default: wrangler builds
   * images/computerd/Dockerfile (docker must run where `pulumi up` runs) and pushes it to the
   * account's registry.
   */
  containerImage?: pulumi.Input<string>;
  /** The admin token (≥ 32 characters). Default: a random 48-character token. Pass a secret. */
  adminToken?: pulumi.Input<string>;
  /** Serve the Worker on a custom domain. */
  customDomain?: CustomDomainArgs;
  /** Serve the Worker on a route of an existing zone. */
  route?: RouteArgs;
  /** Also serve on `<worker>.<subdomain>.workers.dev` (default: true without a domain or route). */
  workersDev?: pulumi.Input<boolean>;
  /** The account's workers.dev subdomain, for the `url` output when no domain or route is set. */
  workersDevSubdomain?: pulumi.Input<string>;
  /** Run the fs benchmark on an NVMe host and store its report in the bucket. */
  benchmark?: BenchmarkArgs;
  /** A checkout of this repository with `npm ci` done (default: the one this module lives in). */
  repoRoot?: string;
}

/** Defaults of the optional inputs. */
export const FLEET_DEFAULTS = {
  instanceType: "standard-1",
  maxInstances: 20,
  adminTokenLength: 48,
  benchmarkWorkDir: "/var/tmp/computer-bench",
  sshPort: 22,
} as const satisfies Record<string, string | number>;
