/**
 * The preview hop of `computerd host`: `/computers/:id/ports/:port/<path>` (any method, and
 * WebSocket upgrades), authenticated with `Proxy-Authorization: Bearer <host token>`, goes on
 * to that computer's daemon (`/ports/:port/<path>`, its secret as proxy credentials), which
 * reaches the port in its sandbox network. A computer whose daemon is not running answers 502
 * at once (nothing listens: its background processes ended with it); traffic keeps it from
 * being stopped as idle.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { isComputerId } from "@computer/sdk/computer-id";
import { HTTP_STATUS } from "@computer/sdk/errors";
import {
  type ForwardTarget,
  forwardHeaders,
  forwardRequest,
  forwardUpgrade,
  refusedBody,
} from "../server/http-forward.ts";
import type { LaunchedDaemon } from "./computer-launcher.ts";

const PORTS_PATH = /^\/computers\/([^/]+)\/ports\/(\d{1,5})(\/[^?]*)?(\?.*)?$/;

/** What the hop needs from the host. */
export interface HostPortsDeps {
  /** True for `Proxy-Authorization` carrying the host token. */
  authorized(header: string | undefined): boolean;
  /** The running daemon of a computer. */
  daemon(id: string): LaunchedDaemon | undefined;
}

function parse(url: string): { id: string; port: number; rest: string } | undefined {
  const match = PORTS_PATH.exec(url);
  if (match === null) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535 || !isComputerId(match[1] ?? "")) return undefined;
  return { id: match[1] ?? "", port, rest: `${match[3] ?? "/"}${match[4] ?? ""}` };
}

function daemonSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** The handlers of the preview hop. */
export function hostPorts(deps: HostPortsDeps) {
  const describe = (port: number) => `port ${port} of the computer's container`;
  const target = (
    req: IncomingMessage,
    daemon: LaunchedDaemon,
    port: number,
    rest: string,
    upgrade: boolean,
  ) => {
    const forward: ForwardTarget = {
      path: `/ports/${port}${rest}`,
      headers: forwardHeaders(
        req,
        ["proxy-authorization"],
        { "proxy-authorization": `Bearer ${daemon.secret}` },
        upgrade,
      ),
      connect: () => daemonSocket(daemon.url),
      describe: describe(port),
    };
    return forward;
  };
  /** A running daemon for the request, or why not (as status and body). */
  const resolve = (req: IncomingMessage) => {
    const parsed = parse(req.url ?? "");
    if (parsed === undefined) return undefined;
    if (!deps.authorized(req.headers["proxy-authorization"])) {
      const body = JSON.stringify({ error: { code: "EUNAUTHORIZED", message: "wrong proxy credentials" } });
      return { kind: "refused", status: HTTP_STATUS.EUNAUTHORIZED, body } as const;
    }
    const daemon = deps.daemon(parsed.id);
    if (daemon === undefined || !daemon.alive)
      return {
        kind: "refused",
        status: HTTP_STATUS.ECONNREFUSED,
        body: refusedBody(describe(parsed.port), "the computer's container is not running"),
      } as const;
    daemon.lastUsed = Date.now();
    return { kind: "daemon", daemon, ...parsed } as const;
  };
  return {
    /** Serves `req` if it is a preview request (true), else leaves it (false). */
    request(req: IncomingMessage, res: ServerResponse): boolean {
      const found = resolve(req);
      if (found === undefined) return false;
      if (found.kind === "refused") {
        req.resume();
        res.writeHead(found.status, { "Content-Type": "application/json" }).end(found.body);
      } else {
        void forwardRequest(req, res, target(req, found.daemon, found.port, found.rest, false));
      }
      return true;
    },

    /** The server's `upgrade` event. */
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      const found = resolve(req);
      if (found === undefined) {
        socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      } else if (found.kind === "refused") {
        socket.end(
          `HTTP/1.1 ${found.status} Preview\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(found.body)}\r\nConnection: close\r\n\r\n${found.body}`,
        );
      } else {
        void forwardUpgrade(req, socket, head, target(req, found.daemon, found.port, found.rest, true));
      }
    },
  };
}
