/**
 * Issuing and revoking computer tokens (POST/DELETE /v1/computers/:id/tokens, admin only).
 * Revoking replaces the computer's token generation, so every earlier token fails with 401.
 */
import { isTokenScope } from "../auth/principal.ts";
import { signingKey } from "../auth/signing-key.ts";
import { signToken } from "../auth/token-codec.ts";
import { ApiError } from "../http/errors.ts";
import { optionalInteger, readJsonObject } from "../http/json-body.ts";
import type { ComputerContext } from "./context.ts";
import { newTokenNonce } from "./record.ts";

/** Default token lifetime: one hour. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
/** Longest token lifetime: 90 days. */
export const MAX_TOKEN_TTL_SECONDS = 90 * 24 * 3600;

/** POST: `{ ttlSeconds?, scope }` → 201 `{ token, expiresAt }`. */
export async function createToken(host: ComputerContext, request: Request): Promise<Response> {
  const record = host.requireComputer();
  const body = await readJsonObject(request);
  const ttlSeconds =
    optionalInteger(body, "ttlSeconds", 1, MAX_TOKEN_TTL_SECONDS) ?? DEFAULT_TOKEN_TTL_SECONDS;
  const scope = body.scope;
  if (!isTokenScope(scope)) throw new ApiError("EINVAL", `'scope' must be "ro" or "rw"`);
  const expiresAt = Date.now() + ttlSeconds * 1000;
  const token = await signToken(await signingKey(host.env.COMPUTER_ADMIN_TOKEN), {
    computer: record.id,
    scope,
    expiresAt,
    nonce: record.tokenNonce,
    id: crypto.randomUUID(),
  });
  return Response.json({ token, expiresAt: new Date(expiresAt).toISOString() }, { status: 201 });
}

/** DELETE: revokes every token issued so far for this computer → 204. */
export function revokeTokens(host: ComputerContext): Response {
  const record = host.requireComputer();
  host.records.put({ ...record, tokenNonce: newTokenNonce() });
  return new Response(null, { status: 204 });
}
