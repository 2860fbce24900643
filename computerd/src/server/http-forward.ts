/**
 * Forwarding one HTTP request, or a WebSocket (any Upgrade) connection, to a socket the caller
 * connects: the preview hops of `computerd host` (to a daemon) and of a daemon (to a port in
 * its sandbox network). The request goes on with a new path and headers; a connect that fails
 * answers 502 with the API's JSON error (`ECONNREFUSED` when nothing listens), never a hang.
 */
import { type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

/** Opens the upstream connection; rejects with the system's error. */
export type Connect = () => Promise<Socket>;

/** What a forward sends upstream. */
export interface ForwardTarget {
  /** Path and query upstream. */
  path: string;
  /** Request headers upstream (hop-by-hop ones are dropped from the incoming ones already). */
  headers: IncomingHttpHeaders;
  connect: Connect;
  /** What to call the upstream in a 502's message ("port 3000 of the computer's container"). */
  describe: string;
}

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1), but for upgrades. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** The incoming headers without hop-by-hop ones (kept for an upgrade), `drop` and then `set`. */
export function forwardHeaders(
  req: IncomingMessage,
  drop: readonly string[],
  set: Record<string, string>,
  upgrade = false,
): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { ...req.headers };
  for (const name of upgrade ? drop : [...HOP_BY_HOP, ...drop]) delete headers[name];
  return { ...headers, ...set };
}

/** The API's error body (502 ECONNREFUSED) for an upstream that refused, and `why`. */
export function refusedBody(describe: string, why: string): string {
  return JSON.stringify({ error: { code: "ECONNREFUSED", message: `${describe} refused: ${why}` } });
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "ECONNREFUSED") return "nothing listens on it";
  return `${code ?? "error"}: ${error instanceof Error ? error.message : String(error)}`;
}

function badGateway(res: ServerResponse, describe: string, error: unknown): void {
  const body = refusedBody(describe, reason(error));
  res.writeHead(502, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

/** Forwards `req` to `target` and streams the answer back into `res`. */
export async function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: ForwardTarget,
): Promise<void> {
  let socket: Socket;
  try {
    socket = await target.connect();
  } catch (error) {
    req.resume();
    return badGateway(res, target.describe, error);
  }
  socket.resume();
  const upstream = request({
    method: req.method,
    path: target.path,
    headers: target.headers,
    createConnection: () => socket,
  });
  upstream.on("response", (answer) => {
    const pairs: string[] = [];
    for (let i = 0; i < answer.rawHeaders.length; i += 2) {
      const name = answer.rawHeaders[i] ?? "";
      if (!HOP_BY_HOP.includes(name.toLowerCase())) pairs.push(name, answer.rawHeaders[i + 1] ?? "");
    }
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, pairs);
    answer.pipe(res);
  });
  upstream.on("error", (error) => {
    if (!res.headersSent) badGateway(res, target.describe, error);
    else res.destroy();
  });
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

/**
 * Forwards an upgrade request (`req`, already read up to `head`) to `target` and then joins
 * the two connections byte for byte: the upstream's `101` and everything after it.
 */
export async function forwardUpgrade(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  target: ForwardTarget,
): Promise<void> {
  let upstream: Socket;
  try {
    upstream = await target.connect();
  } catch (error) {
    const body = refusedBody(target.describe, reason(error));
    client.end(
      `HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return;
  }
  let lines = `${req.method} ${target.path} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(target.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines += `${name}: ${one}\r\n`;
  }
  upstream.write(`${lines}\r\n`);
  if (head.length > 0) upstream.write(head);
  upstream.resume();
  const close = () => {
    upstream.destroy();
    client.destroy();
  };
  upstream.on("error", close);
  client.on("error", close);
  upstream.on("close", close);
  client.on("close", close);
  upstream.pipe(client);
  client.pipe(upstream);
}
