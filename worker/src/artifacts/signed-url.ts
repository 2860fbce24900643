/**
 * Signed, expiring public links to artifacts, served by the Worker itself:
 * `/a/<name>/<version>/<expires>.<signature>/<path>`. The signature is HMAC-SHA-256 (key derived
 * from the admin token, signing-key.ts) over the name, version, the scope path the link grants
 * and the expiry; a link whose scope is "" grants the whole artifact. The token sits in the
 * path, not the query, so relative links inside a published site keep working.
 */

import { fromBase64Url, toBase64Url } from "../auth/base64url.ts";
import { derivedKey } from "../auth/signing-key.ts";
import { ApiError } from "../http/errors.ts";
import { parseUrlPath } from "../http/paths.ts";
import { ARTIFACT_NAME, ARTIFACT_VERSION } from "./names.ts";

/** Every public link path starts with this. */
export const SIGNED_URL_PREFIX = "/a/";
/** Link lifetime when the publisher names none: 7 days. */
export const DEFAULT_SIGNED_URL_TTL_SECONDS = 7 * 24 * 60 * 60;
/** Longest link lifetime: 365 days. */
export const MAX_SIGNED_URL_TTL_SECONDS = 365 * 24 * 60 * 60;

const encoder = new TextEncoder();

/** What a link grants. */
export interface SignedUrlClaims {
  name: string;
  version: string;
  /** Artifact-relative path the link grants ("" = everything in the artifact). */
  scope: string;
  /** Expiry, seconds since the epoch. */
  expires: number;
}

/** A parsed link request. */
export interface SignedUrlRequest {
  name: string;
  version: string;
  /** `<expires>.<signature>` as it appeared in the URL. */
  token: string;
  /** The artifact-relative path asked for ("" = the root; ends with "/" for a directory). */
  path: string;
}

function message(claims: SignedUrlClaims): Uint8Array<ArrayBuffer> {
  return encoder.encode(`ca1\n${claims.name}\n${claims.version}\n${claims.scope}\n${claims.expires}`);
}

/** The HMAC key of artifact links under `adminToken`. */
export function urlSigningKey(adminToken: string): Promise<CryptoKey> {
  return derivedKey(adminToken, "artifact-link");
}

/** Signs `claims` → the `<expires>.<signature>` path segment. */
export async function signUrl(key: CryptoKey, claims: SignedUrlClaims): Promise<string> {
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, message(claims)));
  return `${claims.expires}.${toBase64Url(signature)}`;
}

function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** The full public URL of `claims` on `origin`, opening `path` (default: the scope). */
export async function signedUrl(
  key: CryptoKey,
  origin: string,
  claims: SignedUrlClaims,
  path = claims.scope,
): Promise<string> {
  const token = await signUrl(key, claims);
  const base = `${origin}${SIGNED_URL_PREFIX}${claims.name}/${encodeURIComponent(claims.version)}/${token}/`;
  return base + encodePath(path);
}

/**
 * Parses a request path under SIGNED_URL_PREFIX; undefined for any other path. A malformed name,
 * version or file path is 404 ENOENT (no such link), never a hint about what exists.
 */
export function parseSignedUrl(pathname: string): SignedUrlRequest | undefined {
  if (!pathname.startsWith(SIGNED_URL_PREFIX)) return undefined;
  const [rawName = "", rawVersion = "", token = "", ...rest] = pathname
    .slice(SIGNED_URL_PREFIX.length)
    .split("/");
  let name: string;
  let version: string;
  let path: string;
  try {
    name = decodeURIComponent(rawName);
    version = decodeURIComponent(rawVersion);
    const joined = rest.join("/");
    path = joined === "" ? "" : parseUrlPath(joined).slice(1) + (joined.endsWith("/") ? "/" : "");
  } catch {
    throw new ApiError("ENOENT", "no such artifact link");
  }
  if (!ARTIFACT_NAME.test(name) || !ARTIFACT_VERSION.test(version) || token === "") {
    throw new ApiError("ENOENT", "no such artifact link");
  }
  return { name, version, token, path: path === "/" ? "" : path };
}

async function signedFor(
  key: CryptoKey,
  signature: Uint8Array<ArrayBuffer>,
  claims: SignedUrlClaims,
): Promise<boolean> {
  return crypto.subtle.verify("HMAC", key, signature, message(claims));
}

/**
 * Checks `link`'s token: the signature must cover the whole artifact or exactly the path asked
 * for, and the expiry must lie after `nowMs`. Throws 403 EFORBIDDEN otherwise (tampered,
 * malformed or expired alike, the message says which).
 */
export async function verifySignedUrl(
  key: CryptoKey,
  link: SignedUrlRequest,
  nowMs: number,
): Promise<SignedUrlClaims> {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(link.token);
  const signature = match === null ? undefined : fromBase64Url(match[2] ?? "");
  if (match === null || signature === undefined) throw new ApiError("EFORBIDDEN", "invalid artifact link");
  const expires = Number(match[1]);
  const base = { name: link.name, version: link.version, expires };
  const path = link.path.endsWith("/") ? link.path.slice(0, -1) : link.path;
  let claims: SignedUrlClaims | undefined;
  if (await signedFor(key, signature, { ...base, scope: "" })) claims = { ...base, scope: "" };
  else if (path !== "" && (await signedFor(key, signature, { ...base, scope: path })))
    claims = { ...base, scope: path };
  if (claims === undefined) throw new ApiError("EFORBIDDEN", "invalid artifact link");
  if (expires * 1000 <= nowMs) throw new ApiError("EFORBIDDEN", "artifact link expired");
  return claims;
}
