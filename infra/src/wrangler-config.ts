/**
 * The wrangler config the fleet deploys with: worker/wrangler.jsonc (the one source of the
 * Worker's bindings, Durable Object migrations and container class) with the fleet's own names,
 * account, bucket and container sizing laid over it, and every path made absolute so the file
 * can live anywhere. Pure functions: reading the base config is the only I/O.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parseJsonc } from "./jsonc.ts";
import type { InstanceType } from "./validate.ts";

/** A Durable Object binding of the Worker. */
export interface DurableObjectBinding {
  name: string;
  class_name: string;
}

/** One migration step (wrangler's `migrations[]`). */
export interface Migration {
  tag: string;
  new_sqlite_classes?: string[];
  new_classes?: string[];
  deleted_classes?: string[];
  renamed_classes?: { from: string; to: string }[];
}

/** A container application bound to a Durable Object class (wrangler's `containers[]`). */
export interface ContainerEntry {
  class_name: string;
  /** A Dockerfile path or a registry reference. */
  image: string;
  image_build_context?: string;
  max_instances?: number;
  instance_type?: string;
  name?: string;
}

/** The part of a wrangler config the fleet reads and writes; other keys pass through as they are. */
export interface WranglerConfig {
  name: string;
  main: string;
  compatibility_date: string;
  compatibility_flags?: string[];
  account_id?: string;
  workers_dev?: boolean;
  preview_urls?: boolean;
  vars?: Record<string, string>;
  durable_objects?: { bindings: DurableObjectBinding[] };
  migrations?: Migration[];
  containers?: ContainerEntry[];
  worker_loaders?: { binding: string }[];
  r2_buckets?: { binding: string; bucket_name: string }[];
  [key: string]: unknown;
}

/** The artifact bucket's binding name in worker/wrangler.jsonc. */
export const ARTIFACTS_BINDING = "ARTIFACTS";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True if `value` has the fields a Worker config needs (name, main, compatibility_date). */
export function isWranglerConfig(value: unknown): value is WranglerConfig {
  return (
    isRecord(value) &&
    typeof value.name === "string" &&
    typeof value.main === "string" &&
    typeof value.compatibility_date === "string"
  );
}

/** Reads and checks a wrangler.jsonc file. */
export function readWranglerConfig(path: string): WranglerConfig {
  const parsed = parseJsonc(readFileSync(path, "utf8"));
  if (!isWranglerConfig(parsed))
    throw new Error(`${path} is not a Worker config (name, main, compatibility_date)`);
  return parsed;
}

/** What the fleet lays over the base config. */
export interface DeployConfigOptions {
  /** The base config's own path: its relative paths are resolved against its folder. */
  basePath: string;
  workerName: string;
  accountId: string;
  bucketName: string;
  instanceType: InstanceType;
  maxInstances: number;
  /**
   * The container image: undefined keeps the base config's Dockerfile (wrangler builds it and
   * pushes it to the account's registry); otherwise a registry reference used as is.
   */
  image?: string;
  /** Serve on `<worker>.<account subdomain>.workers.dev` too. */
  workersDev: boolean;
}

/**
 * The custom build section with absolute folders. wrangler runs the command in `cwd`, or in its
 * own working directory when none is set; the deploy runs elsewhere, so the folder of the base
 * config (where `npx wrangler deploy` of the Worker runs) is made explicit.
 */
function buildSection(
  build: unknown,
  absolute: (path: string) => string,
): Record<string, unknown> | undefined {
  if (!isRecord(build)) return undefined;
  const watch = build.watch_dir;
  return {
    ...build,
    cwd: absolute(typeof build.cwd === "string" ? build.cwd : "."),
    ...(typeof watch === "string" ? { watch_dir: absolute(watch) } : {}),
    ...(Array.isArray(watch) ? { watch_dir: watch.map((dir) => absolute(String(dir))) } : {}),
  };
}

function looksLikePath(image: string): boolean {
  return image.startsWith(".") || image.startsWith("/") || /(^|\/)Dockerfile[^/]*$/.test(image);
}

/**
 * The deploy config: the base with the fleet's worker name, account, bucket name (on the
 * ARTIFACTS binding), container name/instance type/max instances/image, absolute paths, and
 * workers.dev as asked. `$schema` and the local-only `dev` section are left out. Throws when the
 * base has no ARTIFACTS bucket or no container class, which the fleet cannot work without.
 */
export function deployConfig(base: WranglerConfig, options: DeployConfigOptions): WranglerConfig {
  const baseDir = dirname(options.basePath);
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(baseDir, path));
  const { $schema: _schema, dev: _dev, ...rest } = base;
  const build = buildSection(base.build, absolute);
  const buckets = base.r2_buckets ?? [];
  if (!buckets.some((bucket) => bucket.binding === ARTIFACTS_BINDING)) {
    throw new Error(`${options.basePath} has no ${ARTIFACTS_BINDING} R2 bucket binding`);
  }
  const containers = base.containers ?? [];
  if (containers.length === 0) throw new Error(`${options.basePath} has no containers entry`);
  return {
    ...rest,
    ...(build === undefined ? {} : { build }),
    name: options.workerName,
    main: absolute(base.main),
    account_id: options.accountId,
    workers_dev: options.workersDev,
    preview_urls: false,
    r2_buckets: buckets.map((bucket) =>
      bucket.binding === ARTIFACTS_BINDING ? { ...bucket, bucket_name: options.bucketName } : bucket,
    ),
    containers: containers.map((entry) => {
      const image = options.image ?? entry.image;
      const built = looksLikePath(image);
      const sized: ContainerEntry = {
        ...entry,
        name: `${options.workerName}-${entry.class_name.toLowerCase()}`,
        image: built ? absolute(image) : image,
        instance_type: options.instanceType,
        max_instances: options.maxInstances,
      };
      if (built) sized.image_build_context = absolute(entry.image_build_context ?? dirname(image));
      else delete sized.image_build_context;
      return sized;
    }),
  };
}

/** JSON with object keys sorted at every level: equal configs give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Hex sha-256 of the canonical JSON of `config`. */
export function configHash(config: WranglerConfig): string {
  return createHash("sha256").update(canonicalJson(config)).digest("hex");
}
