/**
 * What a computer's egress policy (`none` | `all` | `{ allow: [hosts] }`) lets through, as
 * one matcher for every runtime: the Worker's gateway (shell, js, git clone) and computerd
 * host's egress proxy (containers) both ask it.
 */
import type { Egress } from "./types.ts";

function defaultPort(protocol: string): string {
  return protocol === "https:" ? "443" : protocol === "http:" ? "80" : "";
}

/**
 * True when `entry` (`host`, `*.host`, `host:port`, `*.host:port`) admits `url`: a bare host
 * admits any port, a wildcard admits subdomains only (not the apex), http(s) only.
 */
export function hostAllowed(entry: string, url: URL): boolean {
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const colon = entry.lastIndexOf(":");
  const pattern = colon > 0 ? entry.slice(0, colon) : entry;
  const port = colon > 0 ? entry.slice(colon + 1) : undefined;
  if (port !== undefined && port !== (url.port || defaultPort(url.protocol))) return false;
  const host = url.hostname.toLowerCase();
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return host === pattern;
}

/** True when `policy` lets a guest fetch `url`. */
export function egressAllows(policy: Egress, url: string | URL): boolean {
  if (policy === "none") return false;
  if (policy === "all") return true;
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    return false;
  }
  return policy.allow.some((entry) => hostAllowed(entry, parsed));
}

/** True when the policy lets anything out at all. */
export function egressEnabled(policy: Egress): boolean {
  return policy === "all" || (policy !== "none" && policy.allow.length > 0);
}

/**
 * The hosts of an allow-list policy, from a typed policy or a launch spec's raw `egress` (the
 * container launchers pass them to computerd as EGRESS_ALLOW); none for "none", "all" or
 * anything else.
 */
export function egressAllowList(policy: unknown): string[] {
  const allow = typeof policy === "object" && policy !== null ? (policy as { allow?: unknown }).allow : [];
  return Array.isArray(allow) ? allow.filter((host): host is string => typeof host === "string") : [];
}
