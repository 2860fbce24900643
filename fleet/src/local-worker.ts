/**
 * The local Worker: a built bundle of the Computer Worker (worker-bundle.ts) served by
 * Miniflare on a port (local-worker-main.ts), with no proxy in front, in a process group of
 * its own. Shared by `make dev` (scripts/dev.ts) and the end-to-end fleet (fleet.ts). Why not
 * `wrangler dev`: docs/ARCHITECTURE.md, "The local fleet".
 */
import type { ProcessGroup, Supervised } from "./process-group.ts";
import { REPO_ROOT, startWorkerProcess } from "./wrangler-dev.ts";

/** Where and how to serve the local Worker. */
export interface LocalWorkerOptions {
  port: number;
  /** The bundle's folder (buildWorkerBundle). */
  bundle: string;
  /** Directory for Durable Object / R2 state (as `wrangler dev --persist-to`). */
  persistTo: string;
  /** Files of secrets/vars to load instead of worker/.dev.vars (as `wrangler dev --env-file`). */
  envFiles?: readonly string[];
  /** workerd's devtools inspector port (workerInspectorUrl). */
  inspectorPort?: number;
  /** Echo the process's output (default true). */
  echo?: boolean;
}

/** The Worker's name in wrangler.jsonc: its isolate's inspector path and its state's key. */
export const WORKER_NAME = "computer";

/** Starts the local Worker on 127.0.0.1 in `group`; wait for it with waitForHealthy. */
export function startLocalWorker(group: ProcessGroup, options: LocalWorkerOptions): Supervised {
  const args = [
    `${REPO_ROOT}/fleet/src/local-worker-main.ts`,
    "--bundle",
    options.bundle,
    "--port",
    String(options.port),
    "--persist-to",
    options.persistTo,
  ];
  return startWorkerProcess(group, "worker", args, options);
}

/** The devtools WebSocket of the Worker's isolate (where its Durable Objects run) on workerd's inspector. */
export function workerInspectorUrl(port: number): string {
  return `ws://127.0.0.1:${port}/core:user:${WORKER_NAME}`;
}
