/**
 * A computer's egress policy (`none` | `all` | `{ allow: [hosts] }`) as code: whether a URL may
 * be fetched, and a fetch that enforces it (redirects are followed one hop at a time, each hop
 * checked). The gateway entrypoint (egress-gateway.ts) applies it to Dynamic Workers; the DO's
 * own services (git clone) use `policyFetch` directly.
 */
import { egressAllows } from "@computer/sdk/egress-match";
import type { Egress } from "./egress.ts";

export { egressAllows, egressEnabled, hostAllowed } from "@computer/sdk/egress-match";

/** Most redirects a policed fetch follows. */
const MAX_REDIRECTS = 20;

/** Raised when the policy forbids a request. */
export class EgressDenied extends Error {
  readonly code = "EACCES";

  constructor(url: string) {
    super(`network access to ${url} is not allowed by this computer's egress policy`);
    this.name = "EgressDenied";
  }
}

/**
 * `fetch` under `policy`, with redirects followed here (each target checked) unless the caller
 * asked for `redirect: "manual"`. Rejects with EgressDenied for a forbidden URL.
 */
export async function policyFetch(
  policy: Egress,
  input: string | URL | Request,
  init?: RequestInit,
  send: (request: Request) => Promise<Response> = (request) => fetch(request),
): Promise<Response> {
  let request = new Request(input, init);
  const follow = (init?.redirect ?? request.redirect) !== "manual";
  for (let hop = 0; ; hop++) {
    if (!egressAllows(policy, request.url)) throw new EgressDenied(request.url);
    const response = await send(new Request(request, { redirect: "manual" }));
    const location = response.headers.get("Location");
    if (!follow || response.status < 300 || response.status > 399 || location === null) return response;
    if (hop >= MAX_REDIRECTS) throw new Error(`too many redirects fetching ${request.url}`);
    await response.body?.cancel();
    const next = new URL(location, request.url).toString();
    const keepBody = response.status === 307 || response.status === 308;
    request = keepBody
      ? new Request(next, request)
      : new Request(next, { method: request.method === "HEAD" ? "HEAD" : "GET", headers: request.headers });
  }
}
