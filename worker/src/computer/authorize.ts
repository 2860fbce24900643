/**
 * What each principal may do on a computer. The admin may do everything; a computer token
 * must carry the current token generation (else 401, revoked) and the scope the route needs
 * (else 403), as the contract's route table (@computer/sdk/contract) says. `POST /fs` is
 * classified per op by the handler.
 */

import { ROUTES } from "@computer/sdk/contract";
import { WWW_AUTHENTICATE } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../http/errors.ts";
import type { ComputerRoute } from "../http/route.ts";
import type { ComputerRecord } from "./record.ts";

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
  // The contract's table says what each route needs; a route kind missing from it is a compile error.
  const access = ROUTES[route.kind].access;
  if (access === "admin") throw new ApiError("EFORBIDDEN", "this route needs the admin token");
  if (access === "write") requireWrite(principal);
}

/** Throws 403 EFORBIDDEN unless `principal` may write. */
export function requireWrite(principal: Principal): void {
  if (principal.kind === "token" && principal.scope !== "rw") {
    throw new ApiError("EFORBIDDEN", "this token is read-only");
  }
}
