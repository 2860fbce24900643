/**
 * Computer tokens: `ct1.<claims>.<signature>`, base64url JSON claims signed with HMAC-SHA-256
 * (crypto.subtle). A token names one computer, a scope, an expiry and the computer's token
 * generation (nonce); the DO rejects tokens whose nonce is no longer current.
 */
import { fromBase64Url, toBase64Url } from "./base64url.ts";
import { isTokenScope, type TokenScope } from "./principal.ts";

/** Every computer token starts with this (the version of the format). */
export const TOKEN_PREFIX = "ct1.";

/** What a computer token asserts. */
export interface TokenClaims {
  /** Computer id. */
  computer: string;
  scope: TokenScope;
  /** Expiry, milliseconds since the epoch. */
  expiresAt: number;
  /** The computer's token generation at issue time. */
  nonce: string;
  /** Random id of this token. */
  id: string;
}

/** Why a token was refused. */
export type TokenFailure = "malformed" | "signature" | "expired";

interface WireClaims {
  c: string;
  s: string;
  e: number;
  n: string;
  j: string;
}

const encoder = new TextEncoder();

/** Signs `claims` with `key` (from signingKey()). */
export async function signToken(key: CryptoKey, claims: TokenClaims): Promise<string> {
  const wire: WireClaims = {
    c: claims.computer,
    s: claims.scope,
    e: claims.expiresAt,
    n: claims.nonce,
    j: claims.id,
  };
  const head = `${TOKEN_PREFIX}${toBase64Url(encoder.encode(JSON.stringify(wire)))}`;
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(head)));
  return `${head}.${toBase64Url(signature)}`;
}

function parseClaims(bytes: Uint8Array): TokenClaims | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const w = value as Partial<Record<keyof WireClaims, unknown>>;
  if (typeof w.c !== "string" || typeof w.n !== "string" || typeof w.j !== "string") return undefined;
  if (typeof w.e !== "number" || !Number.isSafeInteger(w.e) || !isTokenScope(w.s)) return undefined;
  return { computer: w.c, scope: w.s, expiresAt: w.e, nonce: w.n, id: w.j };
}

/**
 * Verifies `token`'s signature (constant-time, by crypto.subtle.verify) before reading its
 * claims, then its expiry against `nowMs`. Revocation is checked by the computer's DO.
 */
export async function verifyToken(
  key: CryptoKey,
  token: string,
  nowMs: number,
): Promise<{ ok: true; claims: TokenClaims } | { ok: false; reason: TokenFailure }> {
  if (!token.startsWith(TOKEN_PREFIX)) return { ok: false, reason: "malformed" };
  const parts = token.slice(TOKEN_PREFIX.length).split(".");
  if (parts.length !== 2) return { ok: false, reason: "malformed" };
  const [payload = "", signaturePart = ""] = parts;
  const signature = fromBase64Url(signaturePart);
  const claimBytes = fromBase64Url(payload);
  if (signature === undefined || claimBytes === undefined) return { ok: false, reason: "malformed" };
  const head = encoder.encode(`${TOKEN_PREFIX}${payload}`);
  if (!(await crypto.subtle.verify("HMAC", key, signature, head))) return { ok: false, reason: "signature" };
  const claims = parseClaims(claimBytes);
  if (claims === undefined) return { ok: false, reason: "malformed" };
  if (claims.expiresAt <= nowMs) return { ok: false, reason: "expired" };
  return { ok: true, claims };
}
