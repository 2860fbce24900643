/**
 * Bundles the code that runs inside Dynamic Workers (worker/src/guest/) into single ES modules
 * under worker/dist/guests/, which the Worker imports as text (the `*.guest.js` Text rule of
 * wrangler.jsonc) and hands to the Worker Loader: the shell, js and html-to-markdown converter
 * guests. Run by wrangler's custom build before
 * `wrangler dev` / `deploy`, and by worker/vitest.config.ts before the workerd tests.
 * `node worker/scripts/build-guests.ts` builds once.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BuildOptions, build, type Plugin } from "esbuild";
import { lazyGuestModules } from "./lazy-guest-modules.ts";
import { turndownNodeBuildPlugin } from "./turndown-node-build.ts";

const WORKER_DIR = fileURLToPath(new URL("..", import.meta.url));
/** Where the bundles go. */
export const GUESTS_DIR = join(WORKER_DIR, "dist", "guests");

/** Each bundle: its entry under src/guest, its output name and the plugin that resolves for it. */
const GUESTS: readonly { entry: string; out: string; plugin: (guestDir: string) => Plugin }[] = [
  { entry: "shell-guest.ts", out: "shell.guest.js", plugin: lazyGuestModules },
  { entry: "js-guest.ts", out: "js.guest.js", plugin: lazyGuestModules },
  // turndown's Node build with domino (the browser build needs a DOM a Worker does not have).
  { entry: "turndown-guest.ts", out: "turndown.guest.js", plugin: () => turndownNodeBuildPlugin() },
];

/** The same settings for every bundle: ES modules for workerd, minified. */
const COMMON: BuildOptions = {
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2023",
  conditions: ["workerd", "worker", "browser"],
  external: ["cloudflare:*", "node:*"],
  minify: true,
  legalComments: "none",
  logLevel: "warning",
};

/**
 * Builds every guest bundle (~1 s); resolves with each output's name and the source files in it
 * (esbuild's metafile: what a bundle holds is checked by a test).
 */
export async function buildGuests(): Promise<Map<string, string[]>> {
  mkdirSync(GUESTS_DIR, { recursive: true });
  const guestDir = join(WORKER_DIR, "src", "guest");
  const inputs = new Map<string, string[]>();
  for (const guest of GUESTS) {
    const { metafile } = await build({
      entryPoints: [join(guestDir, guest.entry)],
      outfile: join(GUESTS_DIR, guest.out),
      ...COMMON,
      metafile: true,
      plugins: [guest.plugin(guestDir)],
    });
    inputs.set(guest.out, Object.keys(metafile.inputs));
  }
  return inputs;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildGuests();
