/**
 * Starting the Computer Worker under `wrangler dev` and waiting until it answers: shared by
 * `make dev` (scripts/dev.ts) and the end-to-end fleet (fleet/src/fleet.ts).
 */
import { fileURLToPath } from "node:url";
import { WORKER_BUILD_CONDITIONS } from "@computer/sdk/source-condition";
import type { ProcessGroup, Supervised } from "./process-group.ts";

/** The repository root (absolute, no trailing slash). */
export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** The Worker's wrangler config. */
export const WORKER_CONFIG = `${REPO_ROOT}/worker/wrangler.jsonc`;

/**
 * The environment every wrangler invocation gets: no metrics, no request-metadata fetch,
 * wrangler's own config (login, telemetry consent) kept in the git-ignored `.config/`, the
 * Worker bundled from the SDK's sources (@computer/sdk/source-condition), and without wrangler
 * dev's local trace collector unless `X_LOCAL_OBSERVABILITY` asks for it: it streams a span of
 * every SQL statement of the Durable Objects to a trace store of its own, which made applying
 * the container's uploads several times dearer than the statements themselves (docs/BENCH.md,
 * "wrangler dev's local traces"). Production keeps `observability` of wrangler.jsonc.
 */
export function wranglerEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...base,
    X_LOCAL_OBSERVABILITY: base.X_LOCAL_OBSERVABILITY ?? "false",
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    XDG_CONFIG_HOME: `${REPO_ROOT}/.config`,
    WRANGLER_BUILD_CONDITIONS: WORKER_BUILD_CONDITIONS.join(","),
  };
}

/** Where and how to run the local Worker. */
export interface WranglerDevOptions {
  port: number;
  /** The wrangler config to run (default: worker/wrangler.jsonc). */
  config?: string;
  /** Directory for Durable Object / R2 state (`--persist-to`). */
  persistTo: string;
  /** Files of secrets/vars to load instead of worker/.dev.vars (`--env-file`). */
  envFiles?: readonly string[];
  /** Devtools inspector port; pass a free one when several wrangler instances may run at once. */
  inspectorPort?: number;
  /** Echo wrangler's output (default true). */
  echo?: boolean;
}

/** Starts `wrangler dev` (of worker/wrangler.jsonc by default) on 127.0.0.1, non-interactive, in `group`. */
export function startWranglerDev(group: ProcessGroup, options: WranglerDevOptions): Supervised {
  const args = [
    `${REPO_ROOT}/node_modules/wrangler/bin/wrangler.js`,
    "dev",
    "--config",
    options.config ?? WORKER_CONFIG,
    "--ip",
    "127.0.0.1",
    "--port",
    String(options.port),
    "--persist-to",
    options.persistTo,
    "--show-interactive-dev-session=false",
    "--log-level",
    "info",
  ];
  return startWorkerProcess(group, "wrangler", args, options);
}

/** What both ways of serving the Worker take beside their own arguments. */
export interface WorkerProcessOptions {
  envFiles?: readonly string[];
  inspectorPort?: number;
  echo?: boolean;
}

/**
 * Starts `args` (a script and its arguments) under the pinned Node in `group`, in the repo root
 * with wranglerEnv(), adding the env files and the inspector port as both serving scripts take them.
 */
export function startWorkerProcess(
  group: ProcessGroup,
  name: string,
  args: string[],
  options: WorkerProcessOptions,
): Supervised {
  for (const file of options.envFiles ?? []) args.push("--env-file", file);
  if (options.inspectorPort !== undefined) args.push("--inspector-port", String(options.inspectorPort));
  return group.start({
    name,
    // The node running this script is the pinned one (npm run / npx put it first on PATH).
    command: process.execPath,
    args,
    cwd: REPO_ROOT,
    env: wranglerEnv(),
    echo: options.echo ?? true,
  });
}

/** The devtools WebSocket of wrangler dev's inspector proxy (`--inspector-port`): the Worker's isolate. */
export function wranglerInspectorUrl(port: number): string {
  return `ws://127.0.0.1:${port}/ws`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `GET <url>/healthz` until it answers 200. Throws, with the process's recent output,
 * if `proc` exits first or `timeoutMs` passes.
 */
export async function waitForHealthy(url: string, proc: Supervised, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.hasExited()) {
      throw new Error(`${proc.name} exited before ${url}/healthz answered:\n${proc.recentOutput()}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  throw new Error(`${url}/healthz did not answer within ${timeoutMs} ms:\n${proc.recentOutput()}`);
}
