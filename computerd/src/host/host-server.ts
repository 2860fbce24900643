/**
 * The HTTP API of `computerd host`, spoken by the Worker's ComputerdHostLauncher (bearer token):
 * `POST /computers/:id/ensure {spec, specHash, dialBack?}` → `{url, secret, specHash, dialing}`
 * (starts the computer's daemon, or relaunches it when the spec changed; `dialing`: the daemon
 * started now was given `dialBack`, the link URL, and dials it by itself: no /connect needed), `POST /computers/:id/stop`,
 * `DELETE /computers/:id` (stop and delete its state), `GET /computers/:id` →
 * `{running, healthy}`, `GET /health` (no auth), and previews (`/computers/:id/ports/:port/...`,
 * host-ports.ts, the token as proxy credentials). Idle daemons are stopped by a sweeper.
 * The one implementation of the protocol: what runs the daemons is the launcher's
 * (computer-launcher.ts) — bubblewrap children (bwrap-launcher.ts) or docker containers
 * (images/src/docker-host.ts). Errors answer with the API's table (@computer/sdk/errors).
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { COMPUTER_ID } from "@computer/sdk/computer-id";
import { HttpError, readJson, sendError, sendJson } from "../server/http-io.ts";
import { type ComputerLauncher, type LaunchedDaemon, localLaunchSpec } from "./computer-launcher.ts";
import { daemonHealthy, daemonLastActivity } from "./daemon-api.ts";
import { hostPorts } from "./host-ports.ts";

const SWEEP_MS = 30_000;
/** An ensure body is a spec and its hash: small. */
const BODY_LIMIT = 64 * 1024;

/** Where the server listens and what it runs computers with. */
export interface HostServerOptions {
  /** Bearer token the Worker presents (COMPUTERD_HOST_TOKEN). */
  token: string;
  /** A loopback address. */
  listen: string;
  /** 0: any free port. */
  port: number;
  /** A daemon with no running command and no request for this long is stopped. */
  idleMs: number;
  launcher: ComputerLauncher;
  log?: (line: string) => void;
}

/** A running host. */
export interface Host {
  server: Server;
  port: number;
  /** The running daemons by computer id. */
  daemons: Map<string, LaunchedDaemon>;
  /** Stops every daemon and the server. */
  close(): Promise<void>;
}

/** Starts the host server; resolves once it listens. */
export async function startHostServer(options: HostServerOptions): Promise<Host> {
  const { launcher } = options;
  const log = options.log ?? (() => undefined);
  const daemons = new Map<string, LaunchedDaemon>();
  const starting = new Map<string, Promise<{ daemon: LaunchedDaemon; dialing: boolean }>>();
  const expected = Buffer.from(`Bearer ${options.token}`);
  const authorized = (header: string | undefined) => {
    const given = Buffer.from(header ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  const healthy = (daemon: LaunchedDaemon | undefined) =>
    daemon?.alive === true ? daemonHealthy(daemon.url) : Promise.resolve(false);

  /** The computer's daemon; `dialing` when started now with `dialBack`, which it dials itself. */
  async function ensure(
    id: string,
    spec: unknown,
    specHash: string,
    dialBack: string | undefined,
  ): Promise<{ daemon: LaunchedDaemon; dialing: boolean }> {
    const current = daemons.get(id);
    if (current?.alive && current.specHash === specHash && (await healthy(current)))
      return { daemon: current, dialing: false };
    if (current) {
      daemons.delete(id);
      await current.stop();
    }
    const daemon = await launcher.start(id, localLaunchSpec(spec), specHash, dialBack);
    daemons.set(id, daemon);
    return { daemon, dialing: dialBack !== undefined && daemon.dialing === true };
  }

  async function stop(id: string): Promise<void> {
    const daemon = daemons.get(id);
    daemons.delete(id);
    await daemon?.stop();
  }

  const ports = hostPorts({ authorized, daemon: (id) => daemons.get(id) });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (ports.request(req, res)) return;
    const url = new URL(req.url ?? "/", "http://host");
    if (url.pathname === "/health" && req.method === "GET") return sendJson(res, 200, { ok: true });
    if (!authorized(req.headers.authorization))
      throw new HttpError("EUNAUTHORIZED", "a bearer token of this host is required");
    const match = /^\/computers\/([^/]+)(\/ensure|\/stop)?$/.exec(url.pathname);
    const id = match?.[1];
    if (id === undefined) throw new HttpError("ENOENT", `no route ${url.pathname}`);
    if (!COMPUTER_ID.test(id)) throw new HttpError("EINVAL", "bad computer id");
    const action = `${req.method} ${match?.[2] ?? ""}`;
    if (action === "POST /ensure") {
      const body = (await readJson(req, BODY_LIMIT)) as {
        spec?: unknown;
        specHash?: unknown;
        dialBack?: unknown;
      };
      const specHash = typeof body.specHash === "string" ? body.specHash : "";
      const dialBack = typeof body.dialBack === "string" && body.dialBack !== "" ? body.dialBack : undefined;
      let pending = starting.get(id);
      if (pending === undefined) {
        pending = ensure(id, body.spec, specHash, dialBack).finally(() => starting.delete(id));
        starting.set(id, pending);
      }
      const { daemon, dialing } = await pending;
      daemon.lastUsed = Date.now();
      const { url, secret } = daemon;
      return sendJson(res, 200, { url, secret, specHash: daemon.specHash, dialing });
    }
    if (action === "POST /stop" || action === "DELETE ") {
      await stop(id);
      if (action === "DELETE ") await launcher.forget(id);
      res.writeHead(204).end();
      return;
    }
    if (action === "GET ") {
      const daemon = daemons.get(id);
      const running = daemon?.alive === true;
      return sendJson(res, 200, { running, healthy: running && (await healthy(daemon)) });
    }
    throw new HttpError("ENOTSUP", `${req.method} is not served on ${url.pathname}`);
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) return sendError(res, error);
      // A launcher that failed to start or stop a daemon: the computer is unavailable for now.
      const message = error instanceof Error ? error.message : String(error);
      log(`host: ${req.method} ${req.url}: ${message}`);
      sendError(res, new HttpError("EUNAVAILABLE", message));
    });
  });
  server.on("upgrade", (req, socket, head) => ports.upgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(options.port, options.listen, resolve));
  const sweeper = setInterval(
    async () => {
      for (const [id, daemon] of daemons) {
        if (Date.now() - daemon.lastUsed < options.idleMs) continue;
        daemon.lastUsed = Math.max(daemon.lastUsed, await daemonLastActivity(daemon.url, daemon.secret));
        if (Date.now() - daemon.lastUsed < options.idleMs || daemons.get(id) !== daemon) continue;
        log(`host: stopping idle computerd of ${id}`);
        await stop(id);
        log(`host: stopped idle computerd of ${id}`);
      }
    },
    Math.min(SWEEP_MS, options.idleMs),
  );
  sweeper.unref();
  return {
    server,
    port: (server.address() as AddressInfo).port,
    daemons,
    async close() {
      clearInterval(sweeper);
      await Promise.all([...daemons.keys()].map(stop));
      await launcher.close?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
