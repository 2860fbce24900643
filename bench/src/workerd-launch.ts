/**
 * Starting the bench Worker (../workerd) in its own process group on an OS-chosen port, two
 * ways: plain `workerd serve` (the worker bundled with wrangler's esbuild, a generated capnp
 * config, wrangler's pinned workerd binary) or `wrangler dev`. wrangler dev attaches its
 * devtools and tracing, which makes every SQL statement dearer, so plain workerd is the
 * default backend and wrangler dev is measured only on request.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ProcessGroup, Supervised } from "@computer/fleet/process-group";
import { REPO_ROOT, startWranglerDev, waitForHealthy } from "@computer/fleet/wrangler-dev";
import { WORKER_BUILD_CONDITIONS } from "@computer/sdk/source-condition";

const WORKER_DIR = fileURLToPath(new URL("../workerd/", import.meta.url));
const CONFIG = join(WORKER_DIR, "wrangler.jsonc");
const HOST = "127.0.0.1";
/** Resolves packages as wrangler does, so esbuild and workerd are the versions wrangler pins. */
const fromWrangler = createRequire(join(REPO_ROOT, "node_modules", "wrangler", "package.json"));

/** A started Worker. */
export interface Launched {
  url: string;
  process: Supervised;
  /** e.g. "workerd 1.20261117.1". */
  runtime: string;
}

/** A TCP port the OS reports free right now (the runtime binds it moments later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))));
    });
  });
}

/** The fields of ../workerd/wrangler.jsonc the plain-workerd config reuses. */
interface WorkerConfig {
  compatibilityDate: string;
  compatibilityFlags: string[];
  binding: string;
  className: string;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

/** Reads wrangler.jsonc (full-line `//` comments only), so both launchers run the same Worker. */
function readWorkerConfig(): WorkerConfig {
  const text = readFileSync(CONFIG, "utf8")
    .split("\n")
    .filter((line) => !line.trim().startsWith("//"))
    .join("\n");
  const json = JSON.parse(text) as {
    compatibility_date?: unknown;
    compatibility_flags?: unknown;
    durable_objects?: { bindings?: { name?: unknown; class_name?: unknown }[] };
  };
  const binding = json.durable_objects?.bindings?.[0];
  const flags = json.compatibility_flags ?? [];
  if (
    typeof json.compatibility_date !== "string" ||
    !isStringArray(flags) ||
    typeof binding?.name !== "string" ||
    typeof binding.class_name !== "string"
  ) {
    throw new Error(
      `${CONFIG}: expected compatibility_date, compatibility_flags and one Durable Object binding`,
    );
  }
  return {
    compatibilityDate: json.compatibility_date,
    compatibilityFlags: flags,
    binding: binding.name,
    className: binding.class_name,
  };
}

/**
 * The workerd config. `preventEviction`: workerd evicts an object 10 s after its last request
 * began, so a run longer than that (1,000 pwrites on a loaded machine) would lose the
 * in-memory state the finish step checks.
 */
function capnpConfig(worker: WorkerConfig, port: number, storageDir: string): string {
  const q = (s: string) => JSON.stringify(s);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .bench),
    (name = "storage", disk = (path = ${q(storageDir)}, writable = true)),
  ],
  sockets = [(name = "http", address = ${q(`${HOST}:${port}`)}, http = (), service = "main")],
);
const bench :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = ${q(worker.compatibilityDate)},
  compatibilityFlags = [${worker.compatibilityFlags.map(q).join(", ")}],
  durableObjectNamespaces = [(className = ${q(worker.className)}, uniqueKey = ${q(`vfs-bench-${worker.className}`)}, enableSql = true, preventEviction = true)],
  durableObjectStorage = (localDisk = "storage"),
  bindings = [(name = ${q(worker.binding)}, durableObjectNamespace = ${q(worker.className)})],
);
`;
}

/** Bundles ../workerd/worker.ts into `outDir`/worker.js; `node:*` and `cloudflare:*` stay imports. */
async function bundleWorker(outDir: string): Promise<void> {
  const esbuild = fromWrangler("esbuild") as typeof import("esbuild");
  await esbuild.build({
    entryPoints: [join(WORKER_DIR, "worker.ts")],
    outfile: join(outDir, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2023",
    conditions: [...WORKER_BUILD_CONDITIONS],
    external: ["node:*", "cloudflare:*"],
    logLevel: "warning",
  });
}

/** Bundles the Worker and runs it with plain `workerd serve`; state goes to `workDir`/storage. */
export async function launchWorkerd(group: ProcessGroup, workDir: string): Promise<Launched> {
  await bundleWorker(workDir);
  const storageDir = join(workDir, "storage");
  mkdirSync(storageDir);
  const port = await freePort();
  const configFile = join(workDir, "config.capnp");
  writeFileSync(configFile, capnpConfig(readWorkerConfig(), port, storageDir));
  const workerd = fromWrangler("workerd") as { default: string; version: string };
  const proc = group.start({
    name: "workerd",
    command: workerd.default,
    args: ["serve", "--experimental", configFile],
    cwd: workDir,
    echo: false,
  });
  const url = `http://${HOST}:${port}`;
  await waitForHealthy(url, proc, 60_000);
  return { url, process: proc, runtime: `workerd ${workerd.version}` };
}

/** Runs the Worker under `wrangler dev` (wrangler bundles it); state goes to `workDir`. */
export async function launchWranglerDev(group: ProcessGroup, workDir: string): Promise<Launched> {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const proc = startWranglerDev(group, {
    port,
    inspectorPort,
    config: CONFIG,
    persistTo: workDir,
    echo: false,
  });
  const url = `http://${HOST}:${port}`;
  await waitForHealthy(url, proc, 90_000);
  const version = (fromWrangler("./package.json") as { version: string }).version;
  return { url, process: proc, runtime: `wrangler dev ${version}` };
}
