/**
 * The local Worker's process (started by local-worker.ts): serves a built bundle of the
 * Computer Worker (worker-bundle.ts) with Miniflare, the Worker itself on `--port`, as a
 * deployment serves it. `wrangler dev` puts a proxy Worker of its own in front (a second
 * workerd, a Durable Object hop and one more HTTP fetch per request, for its live reload);
 * this process has no such hop (docs/BENCH.md, "The local fleet without wrangler dev's proxy").
 * The bindings are wrangler's own reading of wrangler.jsonc and the env files
 * (`unstable_getMiniflareWorkerOptions`, the function `wrangler dev` uses), the Miniflare and
 * workerd the ones wrangler pins, the state in `--persist-to`/v3 as `wrangler dev
 * --persist-to` keeps it, so a folder of either serves the other.
 *
 *   node local-worker-main.ts --bundle DIR --port N --persist-to DIR
 *                             [--inspector-port N] [--env-file FILE]...
 *
 * The devtools inspector (`--inspector-port`) is workerd's own: the Worker's isolate, where
 * the Durable Objects run, at `ws://127.0.0.1:N/core:user:computer`. Stops on SIGTERM/SIGINT.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { WORKER_NAME } from "./local-worker.ts";
import { bundleModules, type ModuleRule } from "./worker-bundle.ts";
import { REPO_ROOT, WORKER_CONFIG } from "./wrangler-dev.ts";

/** The part of Miniflare's API used here (the package is wrangler's own copy, loaded below). */
interface MiniflareApi {
  Miniflare: new (options: unknown) => { ready: Promise<URL>; dispose(): Promise<void> };
  convertV4MiniflareOptions(options: unknown): unknown;
  Log: new (level: number) => unknown;
  LogLevel: { INFO: number };
}

/** What `unstable_getMiniflareWorkerOptions` answers, as far as it is used here. */
interface WranglerApi {
  unstable_readConfig(args: { config: string }): { name?: string };
  unstable_getMiniflareWorkerOptions(
    configPath: string,
    env: undefined,
    options: { envFiles?: string[] },
  ): { workerOptions: { modulesRules?: ModuleRule[] } & Record<string, unknown> };
}

/** Resolves packages from wrangler's folder: its pinned Miniflare (and so workerd), not another copy. */
const fromWrangler = createRequire(join(REPO_ROOT, "node_modules", "wrangler", "package.json"));

function options() {
  const { values } = parseArgs({
    options: {
      bundle: { type: "string" },
      port: { type: "string" },
      "persist-to": { type: "string" },
      "inspector-port": { type: "string" },
      "env-file": { type: "string", multiple: true },
    },
    strict: true,
  });
  const { bundle, port, "persist-to": persistTo } = values;
  if (!bundle || !port || !persistTo) throw new Error("wants --bundle, --port and --persist-to");
  const inspectorPort = values["inspector-port"];
  return {
    bundle,
    port: Number(port),
    persistTo,
    inspectorPort: inspectorPort === undefined ? undefined : Number(inspectorPort),
    // Like `wrangler dev --env-file`: these files instead of worker/.dev.vars.
    envFiles: values["env-file"],
  };
}

async function main(): Promise<void> {
  const { bundle, port, persistTo, inspectorPort, envFiles } = options();
  const wrangler = fromWrangler("wrangler") as WranglerApi;
  const { Miniflare, convertV4MiniflareOptions, Log, LogLevel } = fromWrangler("miniflare") as MiniflareApi;
  const { workerOptions } = wrangler.unstable_getMiniflareWorkerOptions(
    WORKER_CONFIG,
    undefined,
    envFiles ? { envFiles } : {},
  );
  // The name keys the Durable Objects' state (`<name>-<class>`, as wrangler dev keys it) and the
  // isolate's inspector path (workerInspectorUrl).
  const name = wrangler.unstable_readConfig({ config: WORKER_CONFIG }).name;
  if (name !== WORKER_NAME) throw new Error(`${WORKER_CONFIG}: name ${name}, expected ${WORKER_NAME}`);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port,
      inspectorPort,
      log: new Log(LogLevel.INFO),
      // As fleet/src/wrangler-dev.ts: wrangler dev's trace collector only when asked for.
      unsafeObservability: process.env.X_LOCAL_OBSERVABILITY === "true",
      // No line per request (Miniflare's default): its entry Worker would report each one to
      // this process after the response, work a deployment does not do.
      logRequests: false,
      resourcePersistencePath: join(persistTo, "v3"),
      workers: [
        {
          ...workerOptions,
          name,
          modulesRoot: bundle,
          modules: bundleModules(bundle, workerOptions.modulesRules ?? []),
        },
      ],
    }),
  );
  const url = await mf.ready;
  console.log(`local worker: serving ${bundle} on ${url.origin}`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void mf.dispose().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
