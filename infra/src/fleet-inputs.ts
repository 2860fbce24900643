/**
 * ComputerFleet's inputs, checked and with defaults applied. A plain value is validated at once,
 * so `new ComputerFleet(...)` throws FleetArgError at the stack line that passed it; a value that
 * is still an Output (a secret, another resource's attribute) is validated as it resolves.
 */
import * as pulumi from "@pulumi/pulumi";
import { type ComputerFleetArgs, FLEET_DEFAULTS } from "./fleet-args.ts";
import {
  type InstanceType,
  validateAccountId,
  validateAdminToken,
  validateBucketName,
  validateExposure,
  validateHostname,
  validateImageBuildHost,
  validateInstanceType,
  validateMaxInstances,
  validatePort,
  validatePrivateKey,
  validateRemoteDir,
  validateRoutePattern,
  validateSshHost,
  validateSshUser,
  validateWorkerName,
  validateZoneId,
} from "./validate.ts";

/**
 * Validates `input` now when it is a plain string or number, else when it resolves. (Pulumi's
 * `Unwrap<R>` is `R` for the strings and numbers validators return; TypeScript cannot see that
 * through a type parameter, hence the casts.)
 */
export function checked<T extends string | number, R extends string | number>(
  input: pulumi.Input<T>,
  validate: (value: T) => R,
): pulumi.Output<R> {
  if (typeof input === "string" || typeof input === "number") {
    return pulumi.output(validate(input)) as pulumi.Output<R>;
  }
  return pulumi.output(input).apply((value) => validate(value as T)) as pulumi.Output<R>;
}

/** The fleet's resolved inputs. */
export interface FleetInputs {
  accountId: pulumi.Output<string>;
  workerName: pulumi.Output<string>;
  bucketName: pulumi.Output<string>;
  instanceType: pulumi.Output<InstanceType>;
  maxInstances: pulumi.Output<number>;
  workersDev: pulumi.Output<boolean>;
  /** The given admin token (secret), or undefined to make a random one. */
  adminToken: pulumi.Output<string> | undefined;
  customDomain: { hostname: pulumi.Output<string>; zoneId: pulumi.Output<string> | undefined } | undefined;
  route: { pattern: pulumi.Output<string>; zoneId: pulumi.Output<string> } | undefined;
  benchmark: BenchmarkInputs | undefined;
}

/** The benchmark host's resolved inputs. */
export interface BenchmarkInputs {
  connection: {
    host: pulumi.Output<string>;
    user: pulumi.Output<string>;
    port: pulumi.Output<number>;
    /** Secret. */
    privateKey: pulumi.Output<string>;
    hostKey?: pulumi.Input<string>;
  };
  workDir: pulumi.Output<string>;
  diskDir: pulumi.Output<string>;
}

/** Checks every input of the fleet named `name` and fills in the defaults. */
export function fleetInputs(name: string, args: ComputerFleetArgs): FleetInputs {
  validateExposure(args.customDomain, args.route);
  validateImageBuildHost(process.platform, process.arch, args.containerImage);
  const workerName = checked(args.workerName ?? name, (value) => validateWorkerName(value));
  const bucketName =
    args.bucketName === undefined
      ? workerName.apply((worker) => validateBucketName(`${worker}-artifacts`))
      : checked(args.bucketName, validateBucketName);
  const domain = args.customDomain;
  const route = args.route;
  const bench = args.benchmark;
  let benchmark: BenchmarkInputs | undefined;
  if (bench !== undefined) {
    const workDir = checked(bench.workDir ?? FLEET_DEFAULTS.benchmarkWorkDir, (dir) =>
      validateRemoteDir(dir, "benchmark.workDir"),
    );
    benchmark = {
      connection: {
        host: checked(bench.host, validateSshHost),
        user: checked(bench.user, validateSshUser),
        port: checked(bench.port ?? FLEET_DEFAULTS.sshPort, (port) => validatePort(port)),
        privateKey: pulumi.secret(checked(bench.privateKey, validatePrivateKey)),
        ...(bench.hostKey === undefined ? {} : { hostKey: bench.hostKey }),
      },
      workDir,
      diskDir:
        bench.diskDir === undefined
          ? workDir.apply((work) => `${work}/disk`)
          : checked(bench.diskDir, (dir) => validateRemoteDir(dir, "benchmark.diskDir")),
    };
  }
  return {
    accountId: checked(args.accountId, validateAccountId),
    workerName,
    bucketName,
    instanceType: checked(args.instanceType ?? FLEET_DEFAULTS.instanceType, validateInstanceType),
    maxInstances: checked(args.maxInstances ?? FLEET_DEFAULTS.maxInstances, validateMaxInstances),
    workersDev: pulumi.output(args.workersDev ?? (domain === undefined && route === undefined)),
    adminToken:
      args.adminToken === undefined ? undefined : pulumi.secret(checked(args.adminToken, validateAdminToken)),
    customDomain:
      domain === undefined
        ? undefined
        : {
            hostname: checked(domain.hostname, (value) => validateHostname(value)),
            zoneId: domain.zoneId === undefined ? undefined : checked(domain.zoneId, validateZoneId),
          },
    route:
      route === undefined
        ? undefined
        : {
            pattern: checked(route.pattern, validateRoutePattern),
            zoneId: checked(route.zoneId, validateZoneId),
          },
    benchmark,
  };
}
