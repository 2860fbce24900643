/**
 * @computer/infra: the ComputerFleet Pulumi component, its input types and validators, and the
 * generated-wrangler-config helpers it deploys with.
 */
export { type BenchmarkJob, benchArchive } from "./benchmark-job.ts";
export { ComputerFleet, DEFAULT_REPO_ROOT, FLEET_TYPE } from "./computer-fleet.ts";
export type { BenchmarkArgs, ComputerFleetArgs, CustomDomainArgs, RouteArgs } from "./fleet-args.ts";
export { FLEET_DEFAULTS } from "./fleet-args.ts";
export {
  FleetArgError,
  INSTANCE_TYPES,
  type InstanceType,
  MAX_INSTANCES_LIMIT,
  MIN_ADMIN_TOKEN_LENGTH,
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
export {
  type DeployConfigOptions,
  deployConfig,
  readWranglerConfig,
  type WranglerConfig,
} from "./wrangler-config.ts";
