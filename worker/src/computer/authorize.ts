/**
 * What each principal may do on a computer. The admin may do everything; a computer token
 * must carry the current token generation (else 401, revoked) and the scope the route needs
 * (else 403). `POST /fs` is classified per op by the handler.
 */

import { WWW_AUTHENTICATE } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../http/errors.ts";
import type { ComputerRoute } from "../http/route.ts";
import type { ComputerRecord } from "./record.ts";

/** What a route needs: the admin, a rw token, any token, or (fs) depends on the op. */
export type Access = "admin" | "write" | "read" | "per-op";

/** The access each computer route needs. */
export const ROUTE_ACCESS: Record<ComputerRoute["kind"], Access> = {
  "computer.put": "admin",
  "computer.get": "read",
  "computer.delete": "admin",
  "tokens.create": "admin",
  "tokens.revoke": "admin",
  "files.put": "write",
  "files.get": "read",
  "files.head": "read",
  "files.delete": "write",
  fs: "per-op",
  "checkpoints.create": "write",
  "checkpoints.list": "read",
  "checkpoints.restore": "write",
  fork: "admin",
  "exec.start": "write",
  "exec.list": "read",
  "exec.get": "read",
  "exec.kill": "write",
  "artifacts.publish": "write",
  changes: "read",
  // A terminal runs commands: opening, attaching (it carries keystrokes; checked by the handler)
  // and ending one need rw; its state is readable with any token.
  "terminals.create": "write",
  "terminals.list": "read",
  "terminals.get": "read",
  "terminals.kill": "write",
};

/**
 * Throws 401 EUNAUTHORIZED for a token of another generation (revoked, or issued before the
 * computer was deleted and re-created) and 403 EFORBIDDEN for a token on an admin route.
 */
export function authorize(
  principal: Principal,
  route: ComputerRoute,
  record: ComputerRecord | undefined,
): void {
  if (principal.kind === "admin") return;
  if (record === undefined || record.state !== "ready" || record.tokenNonce !== principal.nonce) {
    throw new ApiError("EUNAUTHORIZED", "token revoked", { headers: WWW_AUTHENTICATE });
  }
  const access = ROUTE_ACCESS[route.kind];
  if (access === "admin") throw new ApiError("EFORBIDDEN", "this route needs the admin token");
  if (access === "write") requireWrite(principal);
}

/** Throws 403 EFORBIDDEN unless `principal` may write. */
export function requireWrite(principal: Principal): void {
  if (principal.kind === "token" && principal.scope !== "rw") {
    throw new ApiError("EFORBIDDEN", "this token is read-only");
  }
}
