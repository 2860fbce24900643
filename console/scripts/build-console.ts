/**
 * Bundles the web console (console/src) into three files under worker/dist/console/ that the
 * Worker imports as text and serves at /console: `app.console.js` (Preact, xterm.js,
 * highlight.js and the SDK in one ES module), `app.console.css` and `index.console.html`.
 * Nothing is fetched from a CDN at run time. Run by wrangler's custom build (with the guest
 * bundles) and by worker/vitest.config.ts; `npm run build -w @computer/console` builds once.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SOURCE_CONDITION } from "@computer/sdk/source-condition";
import { buildSync } from "esbuild";

const CONSOLE_DIR = fileURLToPath(new URL("..", import.meta.url));
/** Where the bundles go: inside the Worker's package, which imports them. */
export const CONSOLE_OUT_DIR = join(CONSOLE_DIR, "..", "worker", "dist", "console");
const require = createRequire(import.meta.url);

/** Builds the console (synchronously, about a second). */
export function buildConsole(): void {
  mkdirSync(CONSOLE_OUT_DIR, { recursive: true });
  buildSync({
    entryPoints: [join(CONSOLE_DIR, "src", "main.tsx")],
    outfile: join(CONSOLE_OUT_DIR, "app.console.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    // The SDK from its sources; "module" is what esbuild adds when no conditions are given.
    conditions: [SOURCE_CONDITION, "module"],
    target: "es2022",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const css = [
    readFileSync(require.resolve("@xterm/xterm/css/xterm.css"), "utf8"),
    readFileSync(require.resolve("highlight.js/styles/github.css"), "utf8"),
    readFileSync(join(CONSOLE_DIR, "src", "styles.css"), "utf8"),
  ].join("\n");
  writeFileSync(join(CONSOLE_OUT_DIR, "app.console.css"), css);
  writeFileSync(
    join(CONSOLE_OUT_DIR, "index.console.html"),
    readFileSync(join(CONSOLE_DIR, "src", "index.html"), "utf8"),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) buildConsole();
