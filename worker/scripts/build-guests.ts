/**
 * Bundles the code that runs inside Dynamic Workers (worker/src/guest/) into single ES modules
 * under worker/dist/guests/, which the Worker imports as text (the `*.guest.js` Text rule of
 * wrangler.jsonc) and hands to the Worker Loader; and the turndown the DO converts the shell's
 * html-to-markdown with into dist/host/turndown.host.js, an ES module the Worker imports
 * (turndown-node-build.ts says why it is built here). Run by wrangler's custom build before
 * `wrangler dev` / `deploy`, and by worker/vitest.config.ts before the workerd tests.
 * `node worker/scripts/build-guests.ts` builds once.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BuildOptions, build } from "esbuild";
import { lazyGuestModules } from "./lazy-guest-modules.ts";
import { turndownNodeBuildPlugin } from "./turndown-node-build.ts";

const WORKER_DIR = fileURLToPath(new URL("..", import.meta.url));
/** Where the bundles go. */
export const GUESTS_DIR = join(WORKER_DIR, "dist", "guests");
/** Where the Worker's own built modules go. */
export const HOST_DIR = join(WORKER_DIR, "dist", "host");
/** The DO's turndown (src/guest-hosting/html-to-markdown.ts imports it). */
const HOST_TURNDOWN = "turndown.host.js";

/** Each bundle: its entry under src/guest and its output name. */
const GUESTS: readonly { entry: string; out: string }[] = [
  { entry: "shell-guest.ts", out: "shell.guest.js" },
  { entry: "js-guest.ts", out: "js.guest.js" },
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
 * Builds every guest bundle and the host's turndown (~1 s); resolves with each output's name
 * and the source files in it (esbuild's metafile: what a bundle holds is checked by a test).
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
      plugins: [lazyGuestModules(guestDir)],
    });
    inputs.set(guest.out, Object.keys(metafile.inputs));
  }
  mkdirSync(HOST_DIR, { recursive: true });
  const { metafile } = await build({
    stdin: { contents: 'export { default } from "turndown";', loader: "js", resolveDir: WORKER_DIR },
    outfile: join(HOST_DIR, HOST_TURNDOWN),
    ...COMMON,
    metafile: true,
    plugins: [turndownNodeBuildPlugin()],
  });
  inputs.set(HOST_TURNDOWN, Object.keys(metafile.inputs));
  return inputs;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildGuests();
