/**
 * `make dev`'s Worker: built (worker-bundle.ts), served on a fixed port (local-worker.ts), and
 * rebuilt and served again on the same port and state when one of its sources changes
 * (worker-watch.ts), as `wrangler dev` reloads. One difference: wrangler dev's proxy held the
 * requests that arrived during a reload; here the port refuses connections for the second
 * or so between the old process and the new one. A build that fails leaves the running
 * Worker as it is.
 */
import { renameSync, rmSync } from "node:fs";
import { startLocalWorker } from "./local-worker.ts";
import type { ExitInfo, ProcessGroup, Supervised } from "./process-group.ts";
import { buildWorkerBundle, type WorkerBundle } from "./worker-bundle.ts";
import { watchWorkerSources } from "./worker-watch.ts";
import { waitForHealthy } from "./wrangler-dev.ts";

/** Where make dev's Worker runs. */
export interface DevWorkerOptions {
  port: number;
  /** The bundle's folder (replaced whole on each rebuild). */
  bundleDir: string;
  persistTo: string;
  log(message: string): void;
  /** The Worker's process exited on its own (not for a reload). */
  onExit(info: ExitInfo): void;
}

/** Builds and serves the Worker; resolves once it answers, with the function that stops watching. */
export async function startDevWorker(group: ProcessGroup, options: DevWorkerOptions): Promise<() => void> {
  const url = `http://127.0.0.1:${options.port}`;
  let current: Supervised | undefined;
  const serve = async (bundle: WorkerBundle) => {
    const started = startLocalWorker(group, {
      port: options.port,
      bundle: bundle.dir,
      persistTo: options.persistTo,
    });
    current = started;
    void started.exited.then((info) => {
      if (started === current) options.onExit(info);
    });
    await waitForHealthy(url, started, 120_000);
  };
  rmSync(options.bundleDir, { recursive: true, force: true });
  let bundle = await buildWorkerBundle(options.bundleDir);
  await serve(bundle);

  let stopWatching = () => {};
  let reloading = false;
  let again = false;
  const reload = async () => {
    if (reloading) {
      again = true;
      return;
    }
    reloading = true;
    try {
      do {
        again = false;
        options.log("a source of the Worker changed: rebuilding");
        const nextDir = `${options.bundleDir}.next`;
        rmSync(nextDir, { recursive: true, force: true });
        let next: WorkerBundle;
        try {
          next = await buildWorkerBundle(nextDir);
        } catch (err) {
          options.log(`the build failed, the Worker keeps running as it was:\n${String(err)}`);
          continue;
        }
        const old = current;
        current = undefined;
        if (old) await group.stopOne(old);
        rmSync(options.bundleDir, { recursive: true, force: true });
        renameSync(nextDir, options.bundleDir);
        bundle = { ...next, dir: options.bundleDir };
        await serve(bundle);
        stopWatching();
        stopWatching = watchWorkerSources(bundle, () => void reload());
        options.log("the Worker is served again");
      } while (again);
    } catch (err) {
      options.log(`the rebuilt Worker did not start: ${String(err)}`);
      options.onExit({ code: 1, signal: null });
    } finally {
      reloading = false;
    }
  };
  stopWatching = watchWorkerSources(bundle, () => void reload());
  return () => stopWatching();
}
