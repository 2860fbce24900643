/**
 * Which API requests reach the Computer DO as its own `fetch` instead of a Workers RPC call
 * (`handle()`): a terminal attach, since a WebSocket cannot cross RPC, and a file's upload and
 * download, whose bodies stream cheaper that way (docs/BENCH.md, "Moving bytes, ninth round").
 */
import type { ComputerRoute } from "../http/route.ts";

/**
 * Routes whose body crosses as a stream: passed to or answered from `handle()`, it crosses RPC
 * as a capnp byte stream, each piece copied into a message and pumped through a pipe; as the
 * DO's own request the vfs reads the upload straight into its chunk buffers, and the download
 * goes out as the response's own stream (workerd's CPU per 100 MiB, the bytes alone: upload
 * ~75 against ~45 ms, download ~90 against ~60 ms).
 */
const STREAMED: ReadonlySet<ComputerRoute["kind"]> = new Set(["files.put", "files.get"]);

/**
 * True when the router forwards `request` with the DO's `fetch`, where it is authenticated and
 * authorized again as if it came straight from the client.
 */
export function routedByFetch(route: ComputerRoute, request: Request): boolean {
  if (STREAMED.has(route.kind)) return true;
  return route.kind === "terminals.get" && request.headers.get("upgrade")?.toLowerCase() === "websocket";
}

/** The routes the DO's `fetch` serves as API requests (routedByFetch's, whatever the upgrade header). */
export function servedByFetch(route: ComputerRoute): boolean {
  return STREAMED.has(route.kind) || route.kind === "terminals.get";
}
