/**
 * The HTTP API of `computerd host`, spoken by the Worker's ComputerdHostLauncher (bearer token):
 * `POST /computers/:id/ensure {spec, specHash}` → `{url, secret, specHash}` (starts the
 * computer's daemon, or relaunches it when the spec changed), `POST /computers/:id/stop`,
 * `DELETE /computers/:id` (stop and delete its state), `GET /computers/:id` →
 * `{running, healthy}`, `GET /health` (no auth), and previews (`/computers/:id/ports/:port/...`,
 * host-ports.ts, the token as proxy credentials). Idle daemons are stopped by a sweeper.
 */
import { timingSafeEqual } from "node:crypto";
import { rmdirSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { COMPUTER_ID } from "@computer/sdk/computer-id";
import { egressAllowList } from "@computer/sdk/egress-match";
import { computerFolders, sandboxUidOf } from "./computer-folders.ts";
import { removeComputerRoot, rootFolders } from "./computer-root.ts";
import { DaemonProcess } from "./daemon-process.ts";
import type { HostConfig } from "./host-config.ts";
import { hostPorts } from "./host-ports.ts";

const SWEEP_MS = 30_000;

/** A running host. */
export interface Host {
  server: Server;
  port: number;
  daemons: Map<string, DaemonProcess>;
  /** Stops every daemon and the server. */
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? {} : JSON.parse(text);
}

function egressOf(spec: unknown): "none" | "all" {
  // An allow-list is a network namespace of its own too, whose only way out is its proxy.
  return typeof spec === "object" && spec !== null && (spec as { egress?: unknown }).egress === "all"
    ? "all"
    : "none";
}

/** The spec's allow-list, or none (the Worker validated its hosts). */
function allowListOf(spec: unknown): string[] {
  return egressAllowList(
    typeof spec === "object" && spec !== null ? (spec as { egress?: unknown }).egress : undefined,
  );
}

function envOf(spec: unknown): Record<string, string> {
  const env: Record<string, string> = {};
  const raw = typeof spec === "object" && spec !== null ? (spec as { env?: unknown }).env : undefined;
  if (typeof raw === "object" && raw !== null) {
    for (const [key, value] of Object.entries(raw)) {
      if (/^COMPUTERD_[A-Z_]+$/.test(key) && key !== "COMPUTERD_SECRET" && typeof value === "string") {
        env[key] = value;
      }
    }
  }
  return env;
}

/** Starts the host server; resolves once it listens. */
export async function startHost(
  config: HostConfig,
  log: (line: string) => void = console.log,
): Promise<Host> {
  const daemons = new Map<string, DaemonProcess>();
  const starting = new Map<string, Promise<DaemonProcess>>();
  const expected = Buffer.from(`Bearer ${config.token}`);
  const authorized = (header: string | undefined) => {
    const given = Buffer.from(header ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  async function ensure(id: string, spec: unknown, specHash: string): Promise<DaemonProcess> {
    const current = daemons.get(id);
    if (current?.alive && current.specHash === specHash && (await current.healthy())) return current;
    if (current) {
      daemons.delete(id);
      await current.stop();
    }
    const daemon = await DaemonProcess.start(
      {
        computerId: id,
        command: config.computerd,
        dir: config.dir,
        folders: computerFolders(config.dir, id),
        sandboxUid: sandboxUidOf(config.dir, id),
        rootfs: config.rootfs,
        sandbox: config.sandbox,
        mount: config.mount,
        egress: egressOf(spec),
        egressAllow: allowListOf(spec),
        env: envOf(spec),
        log: (line) => log(`[${id}] ${line}`),
      },
      specHash,
    );
    daemons.set(id, daemon);
    return daemon;
  }

  const ports = hostPorts({
    authorized,
    daemon: (id) => daemons.get(id),
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (ports.request(req, res)) return;
    const url = new URL(req.url ?? "/", "http://host");
    if (url.pathname === "/health" && req.method === "GET") return send(res, 200, { ok: true });
    if (!authorized(req.headers.authorization)) return send(res, 401, { error: { code: "EUNAUTHORIZED" } });
    const match = /^\/computers\/([^/]+)(\/ensure|\/stop)?$/.exec(url.pathname);
    const id = match?.[1];
    if (id === undefined) return send(res, 404, { error: { code: "ENOENT" } });
    if (!COMPUTER_ID.test(id))
      return send(res, 400, { error: { code: "EINVAL", message: "bad computer id" } });
    const action = `${req.method} ${match?.[2] ?? ""}`;
    if (action === "POST /ensure") {
      const body = (await readBody(req)) as { spec?: unknown; specHash?: unknown };
      const specHash = typeof body.specHash === "string" ? body.specHash : "";
      let pending = starting.get(id);
      if (pending === undefined) {
        pending = ensure(id, body.spec, specHash).finally(() => starting.delete(id));
        starting.set(id, pending);
      }
      const daemon = await pending;
      daemon.lastUsed = Date.now();
      return send(res, 200, { url: daemon.url, secret: daemon.secret, specHash: daemon.specHash });
    }
    if (action === "POST /stop" || action === "DELETE ") {
      const daemon = daemons.get(id);
      daemons.delete(id);
      await daemon?.stop();
      if (action === "DELETE ") {
        const folders = computerFolders(config.dir, id);
        rmSync(folders.stateDir, { recursive: true, force: true });
        await removeComputerRoot(folders);
        // Only empty folders (never recursively through a mount): this frees the sandbox uid.
        const { rootfs, root } = rootFolders(folders);
        for (const path of [folders.mountPoint, rootfs, root, folders.door]) {
          try {
            rmdirSync(path);
          } catch {
            // Already gone, or not empty.
          }
        }
      }
      return send(res, 204);
    }
    if (action === "GET ") {
      const daemon = daemons.get(id);
      const running = daemon?.alive === true;
      return send(res, 200, { running, healthy: running && (await (daemon?.healthy() ?? false)) });
    }
    return send(res, 405, { error: { code: "ENOTSUP" } });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log(`host: ${req.method} ${req.url}: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) send(res, 503, { error: { code: "EUNAVAILABLE", message: String(error) } });
    });
  });
  server.on("upgrade", (req, socket, head) => ports.upgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(config.port, config.listen, resolve));
  const sweeper = setInterval(
    async () => {
      for (const [id, daemon] of daemons) {
        if (Date.now() - daemon.lastUsed < config.idleMs) continue;
        daemon.lastUsed = Math.max(daemon.lastUsed, await daemon.lastActivity());
        if (Date.now() - daemon.lastUsed < config.idleMs) continue;
        log(`host: stopping idle computerd of ${id}`);
        daemons.delete(id);
        await daemon.stop();
      }
    },
    Math.min(SWEEP_MS, config.idleMs),
  );
  sweeper.unref();
  return {
    server,
    port: (server.address() as AddressInfo).port,
    daemons,
    async close() {
      clearInterval(sweeper);
      await Promise.all([...daemons.values()].map((daemon) => daemon.stop()));
      daemons.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
