/**
 * Bundles the code that runs inside Dynamic Workers (worker/src/guest/) into single ES modules
 * under worker/dist/guests/, which the Worker imports as text (the `*.guest.js` Text rule of
 * wrangler.jsonc) and hands to the Worker Loader. Run by wrangler's custom build before
 * `wrangler dev` / `deploy`, and by worker/vitest.config.ts before the workerd tests.
 * `node worker/scripts/build-guests.ts` builds once.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { lazyGuestModules } from "./lazy-guest-modules.ts";

const WORKER_DIR = fileURLToPath(new URL("..", import.meta.url));
/** Where the bundles go. */
export const GUESTS_DIR = join(WORKER_DIR, "dist", "guests");

/** Each bundle: its entry under src/guest and its output name. */
const GUESTS: readonly { entry: string; out: string }[] = [
  { entry: "shell-guest.ts", out: "shell.guest.js" },
  { entry: "js-guest.ts", out: "js.guest.js" },
];

/** Builds every guest bundle (~1 s). */
export async function buildGuests(): Promise<void> {
  mkdirSync(GUESTS_DIR, { recursive: true });
  const guestDir = join(WORKER_DIR, "src", "guest");
  for (const guest of GUESTS) {
    await build({
      entryPoints: [join(guestDir, guest.entry)],
      outfile: join(GUESTS_DIR, guest.out),
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2023",
      conditions: ["workerd", "worker", "browser"],
      external: ["cloudflare:*", "node:*"],
      minify: true,
      legalComments: "none",
      logLevel: "warning",
      plugins: [lazyGuestModules(guestDir)],
    });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await buildGuests();
