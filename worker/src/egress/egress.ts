/**
 * A computer's outbound network policy as stored in its record and sent in `PUT
 * /v1/computers/:id`: the type every runtime reads, and its validation. What the policy lets
 * through is egress-policy.ts.
 */
import type { Egress } from "@computer/sdk/contract";
import { ApiError } from "../http/errors.ts";

/** Outbound network policy of a computer's runtimes. */
export type { Egress };

const MAX_ALLOW_HOSTS = 100;
const HOST = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:\d{1,5})?$/;

/**
 * Validates an egress policy: "none", "all" or `{ allow: [host, ...] }` with lower-case host
 * names, optionally `*.`-prefixed for subdomains and `:port`-suffixed.
 */
export function parseEgress(value: unknown): Egress {
  if (value === "none" || value === "all") return value;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const allow = (value as { allow?: unknown }).allow;
    if (Array.isArray(allow) && allow.length <= MAX_ALLOW_HOSTS) {
      const hosts: string[] = [];
      for (const host of allow) {
        if (typeof host !== "string" || host.length > 253 || !HOST.test(host)) {
          throw new ApiError(
            "EINVAL",
            `'egress.allow' entries must be host names, got ${JSON.stringify(host)}`,
          );
        }
        hosts.push(host);
      }
      return { allow: [...new Set(hosts)] };
    }
  }
  throw new ApiError(
    "EINVAL",
    `'egress' must be "none", "all" or { "allow": [host, ...] } (≤ ${MAX_ALLOW_HOSTS})`,
  );
}
