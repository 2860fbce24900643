/**
 * Turns a request's `Authorization: Bearer` header into a Principal, or 401 EUNAUTHORIZED.
 * The admin token is compared in constant time; computer tokens are verified by signature
 * and expiry here, and by generation (revocation) in their computer's DO.
 */
import { ApiError } from "../http/errors.ts";
import type { Principal } from "./principal.ts";
import { signingKey } from "./signing-key.ts";
import { TOKEN_PREFIX, verifyToken } from "./token-codec.ts";

const encoder = new TextEncoder();

/** Header sent with every 401 (RFC 6750). */
export const WWW_AUTHENTICATE = { "WWW-Authenticate": 'Bearer realm="computer"' };

function unauthorized(message: string): ApiError {
  return new ApiError("EUNAUTHORIZED", message, { headers: WWW_AUTHENTICATE });
}

/**
 * True iff `presented` equals `secret`. Both are hashed first so the comparison takes the
 * same time whatever their lengths or the position of the first differing byte.
 */
export async function isAdminToken(presented: string, secret: string): Promise<boolean> {
  if (secret === "") return false;
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(presented)),
    crypto.subtle.digest("SHA-256", encoder.encode(secret)),
  ]);
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** Prefix of the WebSocket subprotocol that carries a bearer token (`bearer.<token>`). */
export const BEARER_PROTOCOL_PREFIX = "bearer.";

/**
 * The bearer token of `request`, or undefined. A WebSocket upgrade without an Authorization
 * header may carry it as a subprotocol `bearer.<token>` instead, since browsers cannot set
 * headers on a WebSocket (the server never echoes that subprotocol back).
 */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  if (header === null) {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return undefined;
    const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
    const token = offered
      .find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX))
      ?.slice(BEARER_PROTOCOL_PREFIX.length);
    return token === "" ? undefined : token;
  }
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Authenticates `request` against the admin secret; throws 401 EUNAUTHORIZED on failure. */
export async function authenticate(
  request: Request,
  adminSecret: string | undefined,
  nowMs: number,
): Promise<Principal> {
  const token = bearerToken(request);
  if (token === undefined) throw unauthorized("missing bearer token");
  const secret = adminSecret ?? "";
  if (secret === "") console.error("COMPUTER_ADMIN_TOKEN is not set: every request is refused");
  if (token.startsWith(TOKEN_PREFIX)) {
    if (secret === "") throw unauthorized("invalid token");
    const result = await verifyToken(await signingKey(secret), token, nowMs);
    if (!result.ok) throw unauthorized(result.reason === "expired" ? "token expired" : "invalid token");
    const { computer, scope, nonce } = result.claims;
    return { kind: "token", computer, scope, nonce };
  }
  if (await isAdminToken(token, secret)) return { kind: "admin" };
  throw unauthorized("invalid token");
}
