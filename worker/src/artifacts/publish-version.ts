/**
 * Publishing a workspace path as `name@version`, inside the Computer DO: reserve the version
 * in the registry (atomic, immutable), stream the files into R2, write the manifest (the point
 * from which the version is served), mark it published, and mint the signed link. A failure
 * releases the reservation and deletes what was uploaded, so a refused publish leaves nothing.
 */
import type { PublishedArtifact } from "@computer/sdk/contract";
import type { ComputerContext } from "../computer/context.ts";
import { unwrap } from "../computer/rpc-result.ts";
import type { Env } from "../env.ts";
import { ApiError } from "../http/errors.ts";
import { fileKey, type Manifest, manifestKey } from "./manifest.ts";
import { checkArtifactName, checkArtifactVersion, defaultArtifactName } from "./names.ts";
import {
  DEFAULT_SIGNED_URL_TTL_SECONDS,
  MAX_SIGNED_URL_TTL_SECONDS,
  signedUrl,
  urlSigningKey,
} from "./signed-url.ts";
import { collectSource, type Source, uploadAll } from "./upload.ts";

/** What to publish besides the path. */
export interface PublishOptions {
  /** Default: derived from the path's last segment (names.ts). */
  name?: string;
  /** Default: the next integer version of the name ("1", "2", ...). */
  version?: string;
  /** Lifetime of the returned link (default 7 days, at most 365 days). */
  ttlSeconds?: number;
  /** Origin the link points at (default: the origin the computer's API was last called on). */
  origin?: string;
}

/** A published artifact as POST /artifacts answers it (the contract's type). */
export type { PublishedArtifact };

/** Validates the options' shapes and ranges (400 EINVAL) before anything is read or written. */
export function checkPublishOptions(options: PublishOptions): void {
  if (options.name !== undefined) checkArtifactName(options.name);
  if (options.version !== undefined) checkArtifactVersion(options.version);
  const ttl = options.ttlSeconds;
  if (ttl !== undefined && (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_SIGNED_URL_TTL_SECONDS)) {
    throw new ApiError("EINVAL", `'ttlSeconds' must be an integer from 1 to ${MAX_SIGNED_URL_TTL_SECONDS}`);
  }
}

/** The origin links of this computer point at. */
function originOf(host: ComputerContext, options: PublishOptions): string {
  const origin = options.origin ?? host.apiOrigin();
  if (origin === undefined)
    throw new ApiError("EUNAVAILABLE", "no public origin known for artifact links yet");
  return origin;
}

/** A signed link to `name@version` (whole artifact), opening `path`. */
export async function mintLink(
  adminToken: string,
  origin: string,
  name: string,
  version: string,
  path: string,
  ttlSeconds: number,
  nowMs: number,
): Promise<{ url: string; expiresAt: string }> {
  const expires = Math.floor(nowMs / 1000) + ttlSeconds;
  const url = await signedUrl(
    await urlSigningKey(adminToken),
    origin,
    { name, version, scope: "", expires },
    path,
  );
  return { url, expiresAt: new Date(expires * 1000).toISOString() };
}

/** The path a link opens: a file artifact's file, a directory's index (""). */
function entryOf(source: Source): string {
  return source.type === "file" ? (source.files[0]?.path ?? "") : "";
}

async function deleteKeys(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}

/**
 * Publishes the workspace file or directory at `path` (a vfs path, "/" = the workspace root)
 * of the computer in `host`. Errors: 404 ENOENT (no such path), 400 EINVAL (bad name, version,
 * ttl, or nothing to publish), 409 EEXIST (version exists / name owned by another computer),
 * 413 EFBIG (too many or too large files).
 */
export async function publish(
  host: ComputerContext,
  path: string,
  options: PublishOptions,
): Promise<PublishedArtifact> {
  checkPublishOptions(options);
  const computer = host.computerId();
  const vfs = host.vfs();
  const source = collectSource(vfs, path);
  const name = options.name ?? defaultArtifactName(path);
  const origin = originOf(host, options);
  const registry = host.registry();
  const version = unwrap(await registry.reserveArtifact(name, options.version, computer));
  const bucket = host.env.ARTIFACTS;
  const uploaded: string[] = [];
  let manifest: Manifest;
  try {
    const files = await uploadAll(
      bucket,
      vfs,
      source.files,
      (p) => fileKey(name, version, p),
      (key) => uploaded.push(key),
    );
    manifest = {
      name,
      version,
      computer,
      source: path,
      type: source.type,
      createdAt: new Date().toISOString(),
      files,
      bytes: files.reduce((sum, f) => sum + f.size, 0),
    };
    uploaded.push(manifestKey(name, version));
    await bucket.put(manifestKey(name, version), JSON.stringify(manifest), {
      httpMetadata: { contentType: "application/json" },
    });
    await registry.commitArtifact(name, version, {
      type: source.type,
      files: files.length,
      bytes: manifest.bytes,
      entry: entryOf(source),
    });
  } catch (err) {
    await deleteKeys(bucket, uploaded).catch((e: unknown) => console.error("artifact cleanup failed", e));
    await registry
      .releaseArtifact(name, version)
      .catch((e: unknown) => console.error("artifact release failed", e));
    throw err;
  }
  const ttl = options.ttlSeconds ?? DEFAULT_SIGNED_URL_TTL_SECONDS;
  const link = await mintLink(
    host.env.COMPUTER_ADMIN_TOKEN,
    origin,
    name,
    version,
    entryOf(source),
    ttl,
    Date.now(),
  );
  return {
    name,
    version,
    type: source.type,
    ...link,
    files: manifest.files.map(({ path: p, size, sha256 }) => ({ path: p, size, sha256 })),
    bytes: manifest.bytes,
  };
}

/**
 * publish() for code outside the computer's Durable Object (the router, another DO, a Worker
 * entrypoint): one RPC call to `Computer.publishArtifact`; errors come back as ApiError with
 * their code. `path` is a vfs path ("/" = /workspace).
 */
export async function publishFor(
  env: Env,
  computerId: string,
  path: string,
  options: PublishOptions,
): Promise<PublishedArtifact> {
  return unwrap(await env.COMPUTER.getByName(computerId).publishArtifact(path, options));
}
