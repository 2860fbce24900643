/**
 * The daemon's egress proxy: how a container's allow-list is enforced (on `computerd host` and
 * in the production container alike). Commands run in a network namespace of their own with
 * only a loopback (sandbox-network.ts), so their only way out is this HTTP proxy, served by the
 * daemon on a unix socket in its own network and relayed from 127.0.0.1:3128 inside
 * (egress-relay.ts). It tunnels `CONNECT host:port` and forwards plain-HTTP absolute-URI
 * requests, but only to hosts the computer's policy admits (the same matcher as the Worker's
 * gateway); anything else is a 403 whose body says why, and a request that is neither is a 400.
 * It judges names, not addresses: a listed name is reached wherever it resolves.
 */
import { chmodSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { Egress } from "@computer/sdk/contract";
import { egressAllows } from "@computer/sdk/egress-match";

/** A listening proxy. */
export interface EgressProxy {
  server: Server;
  /** Stops accepting and ends every open tunnel. */
  close(): Promise<void>;
}

function refuse(socket: Socket, status: 400 | 403 | 502, message: string): void {
  const reason = status === 400 ? "Bad Request" : status === 403 ? "Forbidden" : "Bad Gateway";
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function deny(res: ServerResponse, status: 400 | 403 | 502, message: string): void {
  res.writeHead(status, { "Content-Type": "text/plain", Connection: "close" }).end(`${message}\n`);
}

const notAllowed = (target: string) => `egress to ${target} is not allowed by this computer's egress policy`;

/** `host:port` of a CONNECT request as a URL the policy can judge, or undefined. */
function connectTarget(authority: string): URL | undefined {
  if (!/^[^/?#@\s]+:\d{1,5}$/.test(authority)) return undefined;
  try {
    const url = new URL(`https://${authority}/`);
    const port = Number(authority.slice(authority.lastIndexOf(":") + 1));
    return port > 0 && port < 65_536 ? url : undefined;
  } catch {
    return undefined;
  }
}

function tunnel(policy: Egress, req: IncomingMessage, client: Socket, head: Buffer): void {
  client.on("error", () => client.destroy());
  const authority = req.url ?? "";
  const target = connectTarget(authority);
  if (target === undefined) {
    refuse(client, 400, `CONNECT needs host:port, got ${JSON.stringify(authority)}`);
    return;
  }
  if (!egressAllows(policy, target)) {
    refuse(client, 403, notAllowed(authority));
    return;
  }
  const upstream = connect(Number(target.port || 443), target.hostname.replace(/^\[|\]$/g, ""));
  let connected = false;
  upstream.once("connect", () => {
    connected = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.once("error", (error) => {
    if (connected) client.destroy();
    else refuse(client, 502, `cannot reach ${authority}: ${error.message}`);
  });
  client.once("close", () => upstream.destroy());
}

function forward(policy: Egress, req: IncomingMessage, res: ServerResponse): void {
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    deny(res, 400, "a proxy request needs an absolute http:// URL (or CONNECT host:port)");
    return;
  }
  if (url.protocol !== "http:") {
    deny(res, 400, `only http:// is forwarded, use CONNECT for ${url.protocol}`);
    return;
  }
  if (!egressAllows(policy, url)) {
    deny(res, 403, notAllowed(url.host));
    return;
  }
  const headers = { ...req.headers };
  delete headers["proxy-connection"];
  delete headers["proxy-authorization"];
  const upstream = request(url, { method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", (error) => {
    if (!res.headersSent) deny(res, 502, `cannot reach ${url.host}: ${error.message}`);
    else res.destroy();
  });
  req.pipe(upstream);
}

/** Serves the proxy for `policy` on a unix socket at `path` (only the daemon's user may connect). */
export async function startEgressProxy(policy: Egress, path: string): Promise<EgressProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => forward(policy, req, res));
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) =>
    tunnel(policy, req, client, head),
  );
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_error, socket: Socket) => refuse(socket, 400, "malformed request"));
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // Only the port bridge connects to it (egress-relay.ts), as the daemon's user.
  chmodSync(path, 0o600);
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          rmSync(path, { force: true });
          resolve();
        });
      }),
  };
}
