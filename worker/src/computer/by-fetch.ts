/**
 * Which API requests reach the Computer DO as its own `fetch` instead of a Workers RPC call
 * (`handle()`): a terminal attach, since a WebSocket cannot cross RPC, and a file upload, whose
 * body is read cheaper that way (docs/BENCH.md, "Moving bytes, ninth round").
 */
import type { ComputerRoute } from "../http/route.ts";

/**
 * True when the router forwards `request` with the DO's `fetch`, where it is authenticated and
 * authorized again as if it came straight from the client. A `PUT /files/...` body passed to
 * `handle()` crosses RPC as a capnp byte stream, each piece copied into a message and pumped
 * through a pipe; as the DO's own request the vfs reads it straight into its chunk buffers
 * (workerd's CPU per 100 MiB: ~75 against ~45 ms for the read alone).
 */
export function routedByFetch(route: ComputerRoute, request: Request): boolean {
  if (route.kind === "files.put") return true;
  return route.kind === "terminals.get" && request.headers.get("upgrade")?.toLowerCase() === "websocket";
}

/** The routes the DO's `fetch` serves as API requests (routedByFetch's, whatever the upgrade header). */
export function servedByFetch(route: ComputerRoute): boolean {
  return route.kind === "files.put" || route.kind === "terminals.get";
}
