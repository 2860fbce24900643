/**
 * `make dev`'s live reload: watches what the Worker's bundle was built from (the folders of
 * esbuild's inputs, worker-bundle.ts, and the custom build's `watch_dir`s of wrangler.jsonc)
 * and calls back once a burst of changes has settled, as `wrangler dev` rebuilds on a change.
 */
import { type FSWatcher, watch } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve, sep } from "node:path";
import type { WorkerBundle } from "./worker-bundle.ts";
import { WORKER_CONFIG } from "./wrangler-dev.ts";

/** How long the sources must stay unchanged before the rebuild (an editor's save is several events). */
export const SETTLE_MS = 300;

/** wrangler's reading of a config (JSONC), as far as it is used here. */
interface WranglerConfigApi {
  unstable_readConfig(args: { config: string }): { build?: { watch_dir?: string | string[] } };
}

/** The custom build's watched folders (`build.watch_dir`), absolute. */
function customBuildDirs(config: string): string[] {
  const wrangler = createRequire(import.meta.url)("wrangler") as WranglerConfigApi;
  const watchDir = wrangler.unstable_readConfig({ config }).build?.watch_dir;
  const dirs = watchDir === undefined ? [] : Array.isArray(watchDir) ? watchDir : [watchDir];
  return dirs.map((dir) => resolve(dirname(config), dir));
}

/** Folders of the inputs, but built output (`dist/`): the rebuild writes there itself. */
function sourceDirs(bundle: WorkerBundle): Set<string> {
  const dirs = bundle.inputs.map((path) => dirname(path));
  return new Set(dirs.filter((dir) => !`${dir}${sep}`.includes(`${sep}dist${sep}`)));
}

/**
 * Calls `onChange` when a source of `bundle` (or of the custom build) changes, at most once per
 * settled burst. Returns the function that stops watching.
 */
export function watchWorkerSources(
  bundle: WorkerBundle,
  onChange: () => void,
  config = WORKER_CONFIG,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, SETTLE_MS);
  };
  const watchers: FSWatcher[] = [];
  for (const dir of sourceDirs(bundle)) watchers.push(watch(dir, changed));
  for (const dir of customBuildDirs(config)) watchers.push(watch(dir, { recursive: true }, changed));
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
