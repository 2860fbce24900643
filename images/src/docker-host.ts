/**
 * A local launcher that runs the computerd IMAGE under a docker engine and speaks the HTTP API
 * of `computerd host` (see computerd/src/host/host-server.ts), so the Worker's ComputerdHostLauncher
 * drives real containers unchanged: `POST /computers/:id/ensure` starts one container per
 * computer (`--device /dev/fuse --cap-add SYS_ADMIN`, host network, computerd on a free
 * 127.0.0.1 port), `POST .../stop` and `DELETE` remove it, `GET` reports it. For tests and local
 * high-fidelity runs only: containers share the host's network, so egress `none` is not
 * confined (an allow-list is, by the image's computerd, as in production).
 */
import { execFile } from "node:child_process";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { COMPUTER_ID } from "@computer/sdk/computer-id";
import { egressAllowList } from "@computer/sdk/egress-match";

/** Options of the docker host. */
export interface DockerHostOptions {
  /** The image to run, e.g. `computer/computerd:latest`. */
  image: string;
  /** Bearer token the Worker presents (COMPUTERD_HOST_TOKEN). */
  token: string;
  /** Port on 127.0.0.1 (0: any free port). */
  port?: number;
  /** How long a container may take to answer `GET /health`. */
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

/** A running docker host. */
export interface DockerHost {
  port: number;
  /** Container names by computer id. */
  readonly containers: ReadonlyMap<string, string>;
  /** Removes every container it started and stops listening. */
  close(): Promise<void>;
}

interface Running {
  name: string;
  url: string;
  secret: string;
  specHash: string;
}

/** Runs `docker ARGS`; resolves with stdout, rejects with stderr. */
export function docker(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "docker",
      [...args],
      { env: env ?? process.env, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`docker ${args[0] ?? ""}: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createTcpServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

async function running(name: string): Promise<boolean> {
  try {
    return (await docker(["inspect", "-f", "{{.State.Running}}", name])).trim() === "true";
  } catch {
    return false;
  }
}

/**
 * The launch spec's COMPUTERD_* variables (never the secret), as computerd host takes them, and
 * its allow-list as EGRESS_ALLOW: the image's computerd then runs commands in a network
 * namespace whose one way out is its egress proxy, as in production.
 */
export function specEnv(spec: unknown): Record<string, string> {
  const env: Record<string, string> = {};
  const record =
    typeof spec === "object" && spec !== null ? (spec as { env?: unknown; egress?: unknown }) : {};
  const allow = egressAllowList(record.egress);
  if (allow.length > 0) env.EGRESS_ALLOW = allow.join(",");
  const raw = record.env;
  if (typeof raw !== "object" || raw === null) return env;
  for (const [key, value] of Object.entries(raw)) {
    if (/^COMPUTERD_[A-Z_]+$/.test(key) && key !== "COMPUTERD_SECRET" && typeof value === "string")
      env[key] = value;
  }
  return env;
}

/** The `docker run` arguments for one computer; the secret is passed by name from the environment. */
export function runArgs(image: string, name: string, port: number, env: Record<string, string>): string[] {
  const args = ["run", "-d", "--rm", "--name", name, "--network", "host"];
  args.push("--device", "/dev/fuse", "--cap-add", "SYS_ADMIN", "--security-opt", "apparmor=unconfined");
  args.push("-e", "COMPUTERD_SECRET", "-e", "COMPUTERD_HOST=127.0.0.1", "-e", `COMPUTERD_PORT=${port}`);
  for (const [key, value] of Object.entries(env)) args.push("-e", `${key}=${value}`);
  args.push(image);
  return args;
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, body === undefined ? {} : { "Content-Type": "application/json" }).end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  const value: unknown = text === "" ? {} : JSON.parse(text);
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** Starts the docker host on 127.0.0.1; resolves once it listens. */
export async function startDockerHost(options: DockerHostOptions): Promise<DockerHost> {
  const log = options.log ?? (() => undefined);
  const live = new Map<string, Running>();
  const starting = new Map<string, Promise<Running>>();
  const expected = Buffer.from(`Bearer ${options.token}`);
  const authorized = (header: string | undefined) => {
    const given = Buffer.from(header ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  async function remove(id: string): Promise<void> {
    const current = live.get(id);
    live.delete(id);
    if (current) await docker(["rm", "-f", current.name]).catch(() => undefined);
  }

  async function launch(id: string, spec: unknown, specHash: string): Promise<Running> {
    const current = live.get(id);
    if (current && current.specHash === specHash && (await healthy(current.url))) return current;
    await remove(id);
    const port = await freePort();
    const secret = randomBytes(32).toString("hex");
    const name = `computerd-${id}-${randomBytes(3).toString("hex")}`;
    await docker(runArgs(options.image, name, port, specEnv(spec)), {
      ...process.env,
      COMPUTERD_SECRET: secret,
    });
    const entry: Running = { name, url: `http://127.0.0.1:${port}`, secret, specHash };
    live.set(id, entry);
    const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
    while (!(await healthy(entry.url))) {
      if (Date.now() > deadline || !(await running(name))) {
        const logs = await docker(["logs", "--tail", "30", name]).catch((error: unknown) => String(error));
        await remove(id);
        throw new Error(`container ${name} did not become healthy:\n${logs}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    log(`docker-host: ${id} runs in ${name} on ${entry.url}`);
    return entry;
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://host");
    if (url.pathname === "/health" && req.method === "GET") return send(res, 200, { ok: true });
    if (!authorized(req.headers.authorization)) return send(res, 401, { error: { code: "EUNAUTHORIZED" } });
    const match = /^\/computers\/([^/]+)(\/ensure|\/stop)?$/.exec(url.pathname);
    const id = match?.[1];
    if (id === undefined || !COMPUTER_ID.test(id)) return send(res, 404, { error: { code: "ENOENT" } });
    const action = `${req.method} ${match?.[2] ?? ""}`;
    if (action === "POST /ensure") {
      const body = await readJson(req);
      const specHash = typeof body.specHash === "string" ? body.specHash : "";
      let pending = starting.get(id);
      if (pending === undefined) {
        pending = launch(id, body.spec, specHash).finally(() => starting.delete(id));
        starting.set(id, pending);
      }
      const entry = await pending;
      return send(res, 200, { url: entry.url, secret: entry.secret, specHash: entry.specHash });
    }
    if (action === "POST /stop" || action === "DELETE ") {
      await remove(id);
      return send(res, 204);
    }
    if (action === "GET ") {
      const entry = live.get(id);
      const up = entry !== undefined && (await running(entry.name));
      return send(res, 200, {
        running: up,
        healthy: up && entry !== undefined && (await healthy(entry.url)),
      });
    }
    return send(res, 405, { error: { code: "ENOTSUP" } });
  }

  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log(`docker-host: ${req.method} ${req.url}: ${String(error)}`);
      if (!res.headersSent) send(res, 503, { error: { code: "EUNAVAILABLE", message: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get containers() {
      return new Map([...live].map(([id, entry]) => [id, entry.name]));
    },
    async close() {
      await Promise.all([...live.keys()].map(remove));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
