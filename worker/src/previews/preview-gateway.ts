/**
 * The Worker's half of a preview URL: check the signature and expiry (403 without waking the
 * computer's Durable Object), and for a token preview the caller's bearer token (the admin's,
 * or a current one of that computer, any scope); then the DO serves it (preview-proxy.ts).
 */
import { authenticate, WWW_AUTHENTICATE } from "../auth/authenticate.ts";
import type { Env } from "../env.ts";
import { ApiError } from "../http/errors.ts";
import { accessOf, type PreviewRequest, previewKey, verifyPreviewLink } from "./preview-link.ts";

/** Serves a request to a preview URL. */
export async function routePreview(request: Request, env: Env, link: PreviewRequest): Promise<Response> {
  const now = Date.now();
  const claims = await verifyPreviewLink(await previewKey(env.COMPUTER_ADMIN_TOKEN), link, now);
  const computer = env.COMPUTER.getByName(link.computer);
  if (accessOf(claims.id) === "token") {
    const principal = await authenticate(request, env.COMPUTER_ADMIN_TOKEN, now);
    if (principal.kind === "token") {
      if (principal.computer !== link.computer) {
        throw new ApiError("EFORBIDDEN", "this token is for another computer");
      }
      if (!(await computer.tokenCurrent(principal.nonce))) {
        throw new ApiError("EUNAUTHORIZED", "token revoked", { headers: WWW_AUTHENTICATE });
      }
    }
  }
  return computer.fetch(request);
}
