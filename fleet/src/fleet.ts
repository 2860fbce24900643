/**
 * The real local fleet for end-to-end tests: the Worker of worker/wrangler.jsonc, bundled as
 * `wrangler deploy` bundles it and served by Miniflare with no proxy in front (local-worker.ts),
 * on a port the OS chose, with a throwaway state folder and a freshly generated admin token; with
 * `{ computerdHost: true }` also `computerd host` (containers) on another free port; `vars`
 * adds Worker variables (e.g. a test host's COMPUTERD_HOST_URL).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateToken, writeEnvFile } from "./admin-token.ts";
import { hostVars, startComputerdHost, waitForHost } from "./computerd-host.ts";
import { rootfsIfRoot } from "./image-builds.ts";
import { startLocalWorker, workerInspectorUrl } from "./local-worker.ts";
import { ProcessGroup, type Supervised } from "./process-group.ts";
import { buildWorkerBundle } from "./worker-bundle.ts";
import { startWranglerDev, waitForHealthy, wranglerInspectorUrl } from "./wrangler-dev.ts";

/** A running fleet. */
export interface Fleet {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string;
  /** The value of COMPUTER_ADMIN_TOKEN this fleet runs with. */
  adminToken: string;
  /** The fleet's own throwaway folder (state, dev.vars, the host's folder). */
  dir: string;
  /** The host's folder (computer-folders.ts: `state/<id>`, mount points at `mnt/<id>/workspace`), when it runs. */
  hostDir?: string;
  /** The bearer token of `computerd host`, when it runs. */
  hostToken?: string;
  /** The devtools inspector's port. */
  inspectorPort: number;
  /** The devtools WebSocket of the Worker's isolate, where the Durable Objects run. */
  inspectorUrl: string;
  /** The last lines `computerd host` printed (its daemons' event lines are prefixed `[id] `). */
  hostOutput(): string;
  /** Stops the Worker's process and starts it again on the same port and state (a Durable Object restart). */
  restartWorker(): Promise<void>;
  /** Stops every process of the fleet and deletes its state. */
  stop(): Promise<void>;
}

/** A TCP port that was free on 127.0.0.1 a moment ago, chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}

/**
 * Starts the fleet and resolves once `GET /healthz` answers. Set `E2E_VERBOSE=1` to see
 * the processes' output; it is included in the error either way if the Worker never comes up.
 */
export async function startFleet(
  options: {
    computerdHost?: boolean;
    /** How the host sandboxes commands: `bwrap` (default, commands run as an unprivileged user) or `none` (as root). */
    hostSandbox?: "bwrap" | "none";
    /**
     * With bwrap: run commands over the image's root filesystem as root of each computer's user
     * namespace (default where this process is root: `make dev`'s runtime), or `false` for the
     * host's system folders as an unprivileged user (also with E2E_ROOTFS=0 in the environment,
     * e.g. to benchmark both).
     */
    rootfs?: boolean;
    /**
     * Where the fleet's throwaway folder goes (default the system's temporary folder); the
     * isolation suite puts it in the checkout's `.computer`, where `make dev` keeps its own.
     */
    parentDir?: string;
    vars?: Record<string, string>;
    /**
     * What serves the Worker: `local` (default), its deploy bundle under Miniflare with nothing
     * in front (local-worker.ts), or `wrangler-dev` as before (also with FLEET_WRANGLER_DEV=1),
     * to measure the two side by side.
     */
    worker?: "local" | "wrangler-dev";
  } = {},
): Promise<Fleet> {
  const parent = options.parentDir ?? tmpdir();
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, "computer-e2e-"));
  // Sandboxed commands run as unprivileged users, and bubblewrap must reach the mount points
  // below: search permission only, no listing.
  if (options.parentDir !== undefined) chmodSync(parent, 0o711);
  chmodSync(dir, 0o711);
  const adminToken = generateToken();
  const envFile = join(dir, "dev.vars");
  const group = new ProcessGroup();
  const echo = process.env.E2E_VERBOSE === "1";
  let hostDir: string | undefined;
  let hostToken: string | undefined;
  let host: Supervised | undefined;
  const vars: Record<string, string> = { COMPUTER_ADMIN_TOKEN: adminToken, COMPUTERD_HOST_URL: "" };
  if (options.computerdHost) {
    const hostPort = await freePort();
    hostToken = generateToken();
    hostDir = join(dir, "host");
    const sandbox = options.hostSandbox ?? "bwrap";
    const wanted = options.rootfs ?? process.env.E2E_ROOTFS !== "0";
    const rootfs = sandbox === "bwrap" && wanted ? await rootfsIfRoot() : "";
    host = startComputerdHost(group, {
      port: hostPort,
      dir: hostDir,
      token: hostToken,
      sandbox,
      rootfs,
      echo,
    });
    Object.assign(vars, hostVars(hostPort, hostToken));
    try {
      await waitForHost(hostPort, host);
    } catch (err) {
      await group.stop();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }
  writeEnvFile(envFile, { ...vars, ...options.vars });
  const stop = async () => {
    await group.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [port, inspectorPort] = [await freePort(), await freePort()];
    const where = { port, inspectorPort, persistTo: join(dir, "state"), envFiles: [envFile], echo };
    const underWranglerDev =
      (options.worker ?? (process.env.FLEET_WRANGLER_DEV === "1" ? "wrangler-dev" : "local")) ===
      "wrangler-dev";
    const bundle = underWranglerDev ? undefined : await buildWorkerBundle(join(dir, "worker"));
    const startWorker = () =>
      bundle ? startLocalWorker(group, { ...where, bundle: bundle.dir }) : startWranglerDev(group, where);
    let worker = startWorker();
    const url = `http://127.0.0.1:${port}`;
    await waitForHealthy(url, worker, 120_000);
    const fleet: Fleet = {
      url,
      adminToken,
      dir,
      inspectorPort,
      inspectorUrl: underWranglerDev
        ? wranglerInspectorUrl(inspectorPort)
        : workerInspectorUrl(inspectorPort),
      hostOutput: () => host?.recentOutput() ?? "",
      async restartWorker() {
        await group.stopOne(worker);
        worker = startWorker();
        await waitForHealthy(url, worker, 120_000);
      },
      stop,
    };
    if (hostDir !== undefined) fleet.hostDir = hostDir;
    if (hostToken !== undefined) fleet.hostToken = hostToken;
    return fleet;
  } catch (err) {
    await stop();
    throw err;
  }
}
