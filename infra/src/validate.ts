/**
 * Pure validators of ComputerFleet's inputs. Each takes the resolved value and returns it
 * unchanged or throws FleetArgError naming the input and what is wrong, so a bad stack config
 * fails before anything is created. The component runs them on every input as it resolves.
 */

/** A ComputerFleet input that cannot work. */
export class FleetArgError extends Error {
  override readonly name = "FleetArgError";
  /** The input's name, e.g. `workerName` or `benchmark.port`. */
  readonly input: string;

  constructor(input: string, problem: string) {
    super(`ComputerFleet ${input}: ${problem}`);
    this.input = input;
  }
}

/** Cloudflare Containers instance types (wrangler's `containers[].instance_type`). */
export const INSTANCE_TYPES = [
  "lite",
  "basic",
  "standard-1",
  "standard-2",
  "standard-3",
  "standard-4",
] as const;

/** One of INSTANCE_TYPES. */
export type InstanceType = (typeof INSTANCE_TYPES)[number];

/** The most container instances one fleet may ask for. */
export const MAX_INSTANCES_LIMIT = 10_000;

/** The shortest admin token accepted (the Worker derives its token-signing key from it). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** A Cloudflare account id: 32 lower-case hex digits. */
export function validateAccountId(value: string): string {
  if (!/^[0-9a-f]{32}$/.test(value)) {
    throw new FleetArgError("accountId", `must be 32 lower-case hex digits, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A Worker script name: lower-case letters, digits and dashes, 1–63 characters, no edge dash. */
export function validateWorkerName(value: string, input = "workerName"): string {
  if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(value)) {
    throw new FleetArgError(
      input,
      `must be 1-63 lower-case letters, digits or dashes, not starting or ending with a dash; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** An R2 bucket name: 3–63 lower-case letters, digits and dashes, no edge dash. */
export function validateBucketName(value: string): string {
  if (!/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(value)) {
    throw new FleetArgError(
      "bucketName",
      `must be 3-63 lower-case letters, digits or dashes, not starting or ending with a dash; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** One of INSTANCE_TYPES. */
export function validateInstanceType(value: string): InstanceType {
  const found = INSTANCE_TYPES.find((type) => type === value);
  if (found === undefined) {
    throw new FleetArgError(
      "instanceType",
      `must be one of ${INSTANCE_TYPES.join(", ")}; got ${JSON.stringify(value)}`,
    );
  }
  return found;
}

/** A whole number of container instances, 1..MAX_INSTANCES_LIMIT. */
export function validateMaxInstances(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_INSTANCES_LIMIT) {
    throw new FleetArgError(
      "maxInstances",
      `must be a whole number from 1 to ${MAX_INSTANCES_LIMIT}; got ${value}`,
    );
  }
  return value;
}

/** An admin token: at least MIN_ADMIN_TOKEN_LENGTH printable ASCII characters, no whitespace. */
export function validateAdminToken(value: string): string {
  if (value.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new FleetArgError("adminToken", `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long`);
  }
  // The value is never echoed: it is a secret.
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new FleetArgError("adminToken", "must be printable ASCII without whitespace");
  }
  return value;
}

/** A DNS host name: dot-separated labels of letters, digits and inner dashes, at most 253 characters. */
export function validateHostname(value: string, input = "customDomain"): string {
  const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
  const labels = value.split(".");
  if (value.length > 253 || labels.length < 2 || !labels.every((part) => label.test(part))) {
    throw new FleetArgError(
      input,
      `must be a host name like computer.example.com; got ${JSON.stringify(value)}`,
    );
  }
  return value.toLowerCase();
}

/**
 * A Workers route pattern: `host/path`, the host optionally starting with `*.` or `*`, the path
 * optionally ending with `*`; no scheme, no query. Returns the host part.
 */
export function validateRoutePattern(value: string): string {
  const match = /^(\*\.?)?([^/*:?#\s]+)(\/[^?#\s]*)$/.exec(value);
  const host = match?.[2];
  const path = match?.[3] ?? "";
  if (host === undefined || path.slice(0, -1).includes("*")) {
    throw new FleetArgError(
      "route.pattern",
      `must look like computer.example.com/* (no scheme, a * only at the start of the host or the end of the path); got ${JSON.stringify(value)}`,
    );
  }
  validateHostname(host, "route.pattern");
  return value;
}

/** A Cloudflare zone id: 32 lower-case hex digits. */
export function validateZoneId(value: string): string {
  if (!/^[0-9a-f]{32}$/.test(value)) {
    throw new FleetArgError("route.zoneId", `must be 32 lower-case hex digits, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Where the benchmark host is: a host name or an IPv4/IPv6 address. */
export function validateSshHost(value: string): string {
  const ipv4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;
  const ipv6 = /^[0-9a-f:]+$/i;
  if (ipv4.test(value) || (value.includes(":") && ipv6.test(value))) return value;
  const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
  const labels = value.split(".");
  // A name whose last label is all digits would be an address, and it is not a valid one.
  const numericTop = /^\d+$/.test(labels[labels.length - 1] ?? "");
  if (value.length <= 253 && !numericTop && labels.every((part) => label.test(part))) return value;
  throw new FleetArgError(
    "benchmark.host",
    `must be a host name or an IP address; got ${JSON.stringify(value)}`,
  );
}

/** A POSIX user name for SSH. */
export function validateSshUser(value: string): string {
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(value)) {
    throw new FleetArgError("benchmark.user", `must be a POSIX user name; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A TCP port, 1..65535. */
export function validatePort(value: number, input = "benchmark.port"): number {
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new FleetArgError(input, `must be a whole number from 1 to 65535; got ${value}`);
  }
  return value;
}

/** An OpenSSH or PEM private key (checked by shape only; its text is never echoed). */
export function validatePrivateKey(value: string): string {
  if (
    !/^-----BEGIN [A-Z ]*PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END [A-Z ]*PRIVATE KEY-----\s*$/.test(value)
  ) {
    throw new FleetArgError(
      "benchmark.privateKey",
      "must be a PEM or OpenSSH private key (-----BEGIN ... PRIVATE KEY-----)",
    );
  }
  return value;
}

/**
 * An absolute directory on the benchmark host, used unquoted-safe in remote shell commands:
 * only letters, digits and `/._-`.
 */
export function validateRemoteDir(value: string, input: string): string {
  if (!/^\/[A-Za-z0-9/._-]*$/.test(value) || value.split("/").includes("..")) {
    throw new FleetArgError(
      input,
      `must be an absolute path of letters, digits and /._- (no ..); got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Exactly one of a custom domain and a route may be given. */
export function validateExposure(customDomain: unknown, route: unknown): void {
  if (customDomain !== undefined && route !== undefined) {
    throw new FleetArgError("customDomain", "give a custom domain or a route, not both");
  }
}

/**
 * Building the image here needs a linux-x64 machine: the image's Node is the binary the npm
 * `node` package installed into node_modules for THIS platform. Elsewhere a prebuilt
 * `containerImage` must be given.
 */
export function validateImageBuildHost(platform: string, arch: string, containerImage: unknown): void {
  if (containerImage === undefined && (platform !== "linux" || arch !== "x64")) {
    throw new FleetArgError(
      "containerImage",
      `the computerd image builds only on linux-x64 (this is ${platform}-${arch}): build it there with \`make image\`, push it, and pass its reference`,
    );
  }
}
