/**
 * Preview URLs: `/p/<computer>/<port>/<id>.<expires>.<signature>/<path>` reaches `<path>` on
 * that port inside the computer's container. The signature is HMAC-SHA-256 (key derived from
 * the admin token, signing-key.ts) over the computer, port, preview id and expiry; the id's
 * first letter is the access (`p` public, `t` needs a token for the computer), so it is signed
 * too. The token sits in the path, so relative links of the app keep working.
 */

import { COMPUTER_ID } from "@computer/sdk/computer-id";
import { fromBase64Url, toBase64Url } from "../auth/base64url.ts";
import { derivedKey } from "../auth/signing-key.ts";
import { ApiError } from "../http/errors.ts";

/** Every preview URL path starts with this. */
export const PREVIEW_PREFIX = "/p/";

/** Who may open a preview URL: anyone holding it, or only with a token for the computer. */
export type PreviewAccess = "public" | "token";

/** What a preview URL grants. */
export interface PreviewClaims {
  computer: string;
  port: number;
  /** `p` (public) or `t` (token) and 20 hex digits; a closed and reopened preview has a new one. */
  id: string;
  /** Expiry, seconds since the epoch. */
  expires: number;
}

/** A request to a preview URL, parsed (not yet verified). */
export interface PreviewRequest {
  computer: string;
  port: number;
  /** `<id>.<expires>.<signature>` as it appeared in the URL. */
  token: string;
  /** What the app is asked for: `/` and the rest of the URL's path, plus its query. */
  path: string;
}

const encoder = new TextEncoder();
const PREVIEW_ID = /^[pt][0-9a-f]{20}$/;

/** A fresh preview id for `access`. */
export function newPreviewId(access: PreviewAccess): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${access === "public" ? "p" : "t"}${hex}`;
}

/** The access a preview id stands for. */
export function accessOf(id: string): PreviewAccess {
  return id.startsWith("t") ? "token" : "public";
}

/** True for a TCP port a preview may reach (1–65535). */
export function isPort(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 65535;
}

function message(claims: PreviewClaims): Uint8Array<ArrayBuffer> {
  return encoder.encode(`cp1\n${claims.computer}\n${claims.port}\n${claims.id}\n${claims.expires}`);
}

/** The HMAC key of preview URLs under `adminToken`. */
export function previewKey(adminToken: string): Promise<CryptoKey> {
  return derivedKey(adminToken, "preview-link");
}

/** The preview URL of `claims` on `origin` (its root, ending in `/`). */
export async function previewUrl(key: CryptoKey, origin: string, claims: PreviewClaims): Promise<string> {
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, message(claims)));
  const token = `${claims.id}.${claims.expires}.${toBase64Url(signature)}`;
  return `${origin}${PREVIEW_PREFIX}${claims.computer}/${claims.port}/${token}/`;
}

/** The route prefix of the preview a request is for: `/p/<computer>/<port>/<token>`. */
export function previewBase(request: PreviewRequest): string {
  return `${PREVIEW_PREFIX}${request.computer}/${request.port}/${request.token}`;
}

/**
 * Parses a URL under PREVIEW_PREFIX; undefined for any other path. A malformed computer,
 * port or token is 404 ENOENT (no such preview), never a hint about what exists.
 */
export function parsePreviewLink(url: URL): PreviewRequest | undefined {
  if (!url.pathname.startsWith(PREVIEW_PREFIX)) return undefined;
  const [computer = "", rawPort = "", token = "", ...rest] = url.pathname
    .slice(PREVIEW_PREFIX.length)
    .split("/");
  const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : Number.NaN;
  if (!COMPUTER_ID.test(computer) || !isPort(port) || token === "") {
    throw new ApiError("ENOENT", "no such preview");
  }
  return { computer, port, token, path: `/${rest.join("/")}${url.search}` };
}

/**
 * Checks a preview request's token: signed for its computer and port, unexpired at `nowMs`.
 * Throws 403 EFORBIDDEN otherwise (tampered, malformed or expired alike; the message says which).
 */
export async function verifyPreviewLink(
  key: CryptoKey,
  request: PreviewRequest,
  nowMs: number,
): Promise<PreviewClaims> {
  const match = /^([^.]+)\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(request.token);
  const signature = match === null ? undefined : fromBase64Url(match[3] ?? "");
  const id = match?.[1] ?? "";
  if (match === null || signature === undefined || !PREVIEW_ID.test(id)) {
    throw new ApiError("EFORBIDDEN", "invalid preview link");
  }
  const claims: PreviewClaims = {
    computer: request.computer,
    port: request.port,
    id,
    expires: Number(match[2]),
  };
  if (!(await crypto.subtle.verify("HMAC", key, signature, message(claims)))) {
    throw new ApiError("EFORBIDDEN", "invalid preview link");
  }
  if (claims.expires * 1000 <= nowMs) throw new ApiError("EFORBIDDEN", "preview link expired");
  return claims;
}
