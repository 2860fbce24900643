/**
 * The daemon's preview route: `/ports/:port/<path>` (any method, and WebSocket upgrades) is
 * forwarded to `<path>` on that port of the network its commands run in. The caller (computerd
 * host, or whatever fronts the daemon) authenticates with `Proxy-Authorization: Bearer
 * <secret>`, so the request's own `Authorization` reaches the app; the app sees itself asked
 * as `localhost:<port>`, as a dev server expects.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { PortConnector } from "../exec/loopback.ts";
import { bearerAuth } from "./auth.ts";
import { type ForwardTarget, forwardHeaders, forwardRequest, forwardUpgrade } from "./http-forward.ts";

const PORT_PATH = /^\/ports\/(\d{1,5})(\/[^?]*)?(\?.*)?$/;

/** The port and the app's path of a `/ports/...` request URL; undefined for other paths. */
export function parsePortPath(url: string): { port: number; path: string } | undefined {
  const match = PORT_PATH.exec(url);
  if (match === null) return undefined;
  const port = Number(match[1]);
  if (port < 1 || port > 65535) return undefined;
  return { port, path: `${match[2] ?? "/"}${match[3] ?? ""}` };
}

/** The handlers of the preview route over `ports`. */
export function portRoutes(secret: string, ports: PortConnector) {
  const authorized = bearerAuth(secret);
  const target = (req: IncomingMessage, port: number, path: string, upgrade: boolean): ForwardTarget => ({
    path,
    headers: forwardHeaders(req, ["proxy-authorization"], { host: `localhost:${port}` }, upgrade),
    connect: () => ports.connect(port),
    describe: `port ${port} of the computer's container`,
  });
  return {
    /** Serves `req` if it is a preview request (true), else leaves it (false). */
    request(req: IncomingMessage, res: ServerResponse): boolean {
      const parsed = parsePortPath(req.url ?? "");
      if (parsed === undefined) return false;
      if (!authorized(req.headers["proxy-authorization"])) {
        res.writeHead(401, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: { code: "EUNAUTHORIZED", message: "wrong proxy credentials" } }));
        return true;
      }
      void forwardRequest(req, res, target(req, parsed.port, parsed.path, false));
      return true;
    },

    /** The server's `upgrade` event: a preview WebSocket, or refused. */
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      const parsed = parsePortPath(req.url ?? "");
      if (parsed === undefined || !authorized(req.headers["proxy-authorization"])) {
        socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      void forwardUpgrade(req, socket, head, target(req, parsed.port, parsed.path, true));
    },
  };
}
