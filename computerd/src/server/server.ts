/**
 * computerd's HTTP server: `GET /health` (no auth), and behind the bearer secret the exec
 * routes and `POST /connect`, which makes the daemon dial back to its Durable Object; previews
 * (`/ports/:port/...`, port-routes.ts) authenticate with the secret as proxy credentials.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { ExecTable } from "../exec/exec-table.ts";
import type { PortConnector } from "../exec/loopback.ts";
import { bearerAuth } from "./auth.ts";
import type { LinkManager } from "./dial-back-link.ts";
import { execRoutes } from "./exec-routes.ts";
import { HttpError, readJson, sendError, sendJson } from "./http-io.ts";
import { portRoutes } from "./port-routes.ts";

/** What the server serves. */
export interface ServerDeps {
  secret: string;
  version: string;
  table: ExecTable;
  links: LinkManager;
  /** Whether the workspace is mounted, for /health (left out when not given). */
  mounted?: () => boolean;
  /** Where `/ports/:port/...` (previews) connects: the network commands run in. */
  ports?: PortConnector;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, id: string) => unknown;

/** Creates (does not start) the server. */
export function createComputerdServer(deps: ServerDeps): Server {
  const authorized = bearerAuth(deps.secret);
  const exec = execRoutes(deps.table);

  const health: Handler = (_req, res) => {
    const body: Record<string, unknown> = { ok: true, version: deps.version };
    if (deps.mounted) body.mounted = deps.mounted();
    sendJson(res, 200, body);
  };

  const connect: Handler = async (req, res) => {
    const body = await readJson(req, 64 * 1024);
    const base = typeof body === "object" && body !== null ? (body as { base?: unknown }).base : undefined;
    if (typeof base !== "string") throw new HttpError("EINVAL", "base must be a URL string");
    try {
      const link = await deps.links.connect(base);
      sendJson(res, 200, { connected: true, link: link.id, url: link.url });
    } catch (error) {
      throw new HttpError("EUNAVAILABLE", error instanceof Error ? error.message : String(error));
    }
  };

  /** Routes: [method, path pattern, handler]. `:id` matches one segment. */
  const routes: [string, RegExp, Handler][] = [
    ["POST", /^\/exec$/, exec.start],
    ["GET", /^\/exec$/, exec.list],
    ["GET", /^\/exec\/([^/]+)$/, exec.get],
    ["DELETE", /^\/exec\/([^/]+)$/, exec.kill],
    ["POST", /^\/connect$/, connect],
  ];

  const ports = deps.ports === undefined ? undefined : portRoutes(deps.secret, deps.ports);
  const server = createServer(async (req, res) => {
    try {
      if (ports?.request(req, res)) return;
      const url = new URL(req.url ?? "/", "http://computerd");
      if (url.pathname === "/health" && req.method === "GET") return health(req, res, url, "");
      if (!authorized(req.headers.authorization)) {
        res.setHeader("www-authenticate", "Bearer");
        throw new HttpError("EUNAUTHORIZED", "missing or wrong bearer token");
      }
      let pathMatched = false;
      for (const [method, pattern, handler] of routes) {
        const match = pattern.exec(url.pathname);
        if (!match) continue;
        pathMatched = true;
        if (method !== req.method) continue;
        await handler(req, res, url, decodeURIComponent(match[1] ?? ""));
        return;
      }
      throw pathMatched
        ? new HttpError("ENOTSUP", `${req.method} not allowed`)
        : new HttpError("ENOENT", `no route ${url.pathname}`);
    } catch (error) {
      sendError(res, error);
    }
  });
  server.on("upgrade", (req, socket, head) => {
    if (ports !== undefined) ports.upgrade(req, socket, head);
    else socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  });
  return server;
}
