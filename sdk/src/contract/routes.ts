/**
 * The route table of docs/API.md: every route's name, method, path template and the access it
 * needs. The Worker's parser answers these names, its authorization reads `access`, the OpenAPI
 * document is generated from this table and the SDK builds its URLs from it.
 */
import { ComputerError } from "../error.ts";

/**
 * Who may call a route. `public`: no token; `any`: any valid token; `admin`: the admin token;
 * `read`/`write`: the admin or a token of the computer (`write` needs scope `rw`);
 * `per-op`: decided per op of the body (`POST .../fs`); `owner`: the admin or a token of
 * the artifact's computer.
 */
export type Access = "public" | "any" | "admin" | "read" | "write" | "per-op" | "owner";

/** An HTTP method of the API. */
export type Method = "GET" | "HEAD" | "PUT" | "POST" | "DELETE";

/** One route: method, OpenAPI path template and access. */
export interface RouteSpec {
  method: Method;
  /** OpenAPI path template; `{path}` spans segments (a workspace path). */
  path: string;
  access: Access;
  /** One line for the OpenAPI document. */
  summary: string;
}

/** Every route of the API, by name. */
export const ROUTES = {
  health: { method: "GET", path: "/healthz", access: "public", summary: "Liveness: answers `ok`" },
  "health.head": { method: "HEAD", path: "/healthz", access: "public", summary: "Liveness as headers" },
  openapi: { method: "GET", path: "/v1/openapi.json", access: "any", summary: "This document" },
  "computers.list": {
    method: "GET",
    path: "/v1/computers",
    access: "admin",
    summary: "Computers, paged by id (?after=&limit= 1..100, default 50)",
  },
  "computer.put": {
    method: "PUT",
    path: "/v1/computers/{id}",
    access: "admin",
    summary: "Create (201) or update quota/egress (200)",
  },
  "computer.get": {
    method: "GET",
    path: "/v1/computers/{id}",
    access: "read",
    summary: "Describe a computer",
  },
  "computer.delete": {
    method: "DELETE",
    path: "/v1/computers/{id}",
    access: "admin",
    summary: "Delete a computer and all its data",
  },
  "tokens.create": {
    method: "POST",
    path: "/v1/computers/{id}/tokens",
    access: "admin",
    summary: "Issue a token for this computer",
  },
  "tokens.revoke": {
    method: "DELETE",
    path: "/v1/computers/{id}/tokens",
    access: "admin",
    summary: "Revoke every token of this computer",
  },
  "files.put": {
    method: "PUT",
    path: "/v1/computers/{id}/files/{path}",
    access: "write",
    summary: "Write the body as the file (parents created)",
  },
  "files.get": {
    method: "GET",
    path: "/v1/computers/{id}/files/{path}",
    access: "read",
    summary: "A file's bytes (Range, ETag) or a directory listing (?after=&limit=)",
  },
  "files.head": {
    method: "HEAD",
    path: "/v1/computers/{id}/files/{path}",
    access: "read",
    summary: "Stat as headers",
  },
  "files.delete": {
    method: "DELETE",
    path: "/v1/computers/{id}/files/{path}",
    access: "write",
    summary: "Remove a file or empty directory (?recursive=1: a tree)",
  },
  fs: { method: "POST", path: "/v1/computers/{id}/fs", access: "per-op", summary: "One filesystem op" },
  "checkpoints.create": {
    method: "POST",
    path: "/v1/computers/{id}/checkpoints",
    access: "write",
    summary: "Create a named checkpoint",
  },
  "checkpoints.list": {
    method: "GET",
    path: "/v1/computers/{id}/checkpoints",
    access: "read",
    summary: "List checkpoints",
  },
  "checkpoints.restore": {
    method: "POST",
    path: "/v1/computers/{id}/checkpoints/{name}/restore",
    access: "write",
    summary: "Make the tree the checkpoint's",
  },
  fork: {
    method: "POST",
    path: "/v1/computers/{id}/fork",
    access: "admin",
    summary: "A new computer with the same tree",
  },
  "exec.start": {
    method: "POST",
    path: "/v1/computers/{id}/exec",
    access: "write",
    summary: "Run a command (buffered result, or SSE with Accept: text/event-stream)",
  },
  "exec.list": {
    method: "GET",
    path: "/v1/computers/{id}/exec",
    access: "read",
    summary: "Recent execs, newest first (?limit= 1..100, default 20)",
  },
  "exec.get": {
    method: "GET",
    path: "/v1/computers/{id}/exec/{execId}",
    access: "read",
    summary: "An exec's result; ?follow=1 re-attaches as SSE from ?after=seq",
  },
  "exec.kill": {
    method: "DELETE",
    path: "/v1/computers/{id}/exec/{execId}",
    access: "write",
    summary: "Kill a running exec (idempotent)",
  },
  "artifacts.publish": {
    method: "POST",
    path: "/v1/computers/{id}/artifacts",
    access: "write",
    summary: "Publish a workspace file or directory",
  },
  "artifacts.list": {
    method: "GET",
    path: "/v1/artifacts",
    access: "any",
    summary: "Artifact names (admin: all; a token: its computer's)",
  },
  "artifacts.get": {
    method: "GET",
    path: "/v1/artifacts/{name}",
    access: "owner",
    summary: "An artifact's versions with fresh links",
  },
  changes: {
    method: "GET",
    path: "/v1/computers/{id}/changes",
    access: "read",
    summary: "The change feed: a JSON page, or live SSE (?after=cursor&path=&limit=)",
  },
  "terminals.create": {
    method: "POST",
    path: "/v1/computers/{id}/terminals",
    access: "write",
    summary: "Open a terminal (container pty or shell)",
  },
  "terminals.list": {
    method: "GET",
    path: "/v1/computers/{id}/terminals",
    access: "read",
    summary: "The computer's terminals",
  },
  "terminals.get": {
    method: "GET",
    path: "/v1/computers/{id}/terminals/{tid}",
    access: "read",
    summary: "A terminal's state; a WebSocket upgrade attaches (needs rw, checked by the handler)",
  },
  "terminals.kill": {
    method: "DELETE",
    path: "/v1/computers/{id}/terminals/{tid}",
    access: "write",
    summary: "End a terminal",
  },
  "ports.open": {
    method: "POST",
    path: "/v1/computers/{id}/ports",
    access: "write",
    summary: "Open a preview of a port in the container: a signed URL reaching it (HTTP, WebSocket)",
  },
  "ports.list": {
    method: "GET",
    path: "/v1/computers/{id}/ports",
    access: "read",
    summary: "The open previews, with their URLs",
  },
  "ports.close": {
    method: "DELETE",
    path: "/v1/computers/{id}/ports/{port}",
    access: "write",
    summary: "Close a preview: every URL of it answers 404",
  },
  "preview.get": {
    method: "GET",
    path: "/p/{id}/{port}/{token}/{path}",
    access: "public",
    summary: "A preview URL (any method, WebSocket upgrades): the port's app answers",
  },
  mcp: {
    method: "POST",
    path: "/v1/computers/{id}/mcp",
    access: "read",
    summary: "MCP over Streamable HTTP (JSON-RPC); an ro token gets the read-only tools (docs/MCP.md)",
  },
  "mcp.get": {
    method: "GET",
    path: "/v1/computers/{id}/mcp",
    access: "read",
    summary: "MCP's server-to-client stream: 405, the server is stateless",
  },
  "mcp.delete": {
    method: "DELETE",
    path: "/v1/computers/{id}/mcp",
    access: "read",
    summary: "MCP session end: nothing to end, the server is stateless",
  },
  "link.get": {
    method: "GET",
    path: "/a/{name}/{version}/{token}/{path}",
    access: "public",
    summary: "A public artifact link",
  },
  "link.head": {
    method: "HEAD",
    path: "/a/{name}/{version}/{token}/{path}",
    access: "public",
    summary: "A public artifact link's headers",
  },
} as const satisfies Record<string, RouteSpec>;

/** The name of a route of the API. */
export type RouteName = keyof typeof ROUTES;

/** Every route name, in table order. */
export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

/** The names of the routes under `/v1/computers/{id}`, handled by that computer. */
export type ComputerRouteName = {
  [K in RouteName]: (typeof ROUTES)[K]["path"] extends `/v1/computers/{id}${string}` ? K : never;
}[RouteName];

/** Values for a route's path parameters; `path` is a workspace path, each segment encoded. */
export type PathParams = Partial<
  Record<"id" | "path" | "name" | "execId" | "tid" | "version" | "token" | "port", string>
>;

/**
 * The URL path of `route` with `params` filled in (each percent-encoded; `path` per segment,
 * without a leading slash). Throws when a parameter is missing.
 */
export function routePath(route: RouteName, params: PathParams = {}): string {
  return ROUTES[route].path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key as keyof PathParams];
    if (value === undefined) throw new TypeError(`route ${route} needs '${key}'`);
    if (key === "path") return encodeFilePath(value);
    return encodeURIComponent(value);
  });
}

/**
 * A workspace path for a URL: leading slashes dropped, each segment percent-encoded. A `.` or
 * `..` segment is EINVAL here, as the server would answer: URL parsing resolves them (even as
 * `%2e%2e`) before a request leaves, so it would otherwise reach another path.
 */
export function encodeFilePath(path: string): string {
  const segments = path.replace(/^\/+/, "").split("/");
  if (segments.some((s) => s === "." || s === "..")) {
    throw new ComputerError("EINVAL", "'.' and '..' segments are not allowed", { status: 400, path });
  }
  return segments.map(encodeURIComponent).join("/");
}
