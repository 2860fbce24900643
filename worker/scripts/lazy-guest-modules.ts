/**
 * The esbuild plugin of the shell guest's build (build-guests.ts): two modules just-bash imports
 * at its bundle's top level are evaluated at their first use instead of in every new shell
 * isolate, whose start is on the path of a new computer's first shell exec (docs/BENCH.md,
 * "Shell cold start"). just-bash's `turndown` import goes to src/guest/lazy-turndown.ts, which
 * requires the real turndown under `computer-guest:turndown` (a require: the bundler then
 * evaluates it where it is called); its `node:zlib` imports go to src/guest/lazy-zlib.ts. Only
 * just-bash's own imports are redirected.
 *
 * The real turndown is its Node build, not the browser build the guest's `browser` condition
 * would pick: the browser build parses HTML with the page's `document`, which an isolate does
 * not have ("document is not defined"), while the Node build parses it with domino, turndown's
 * own DOM dependency, in plain JavaScript. turndown's `browser` field maps domino away, so the
 * plugin resolves turndown's import of it by hand.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Plugin } from "esbuild";

/** Where just-bash's bundle lives: its imports, and only those, are redirected. */
const JUST_BASH = /[\\/]node_modules[\\/]just-bash[\\/]/;
/** The name lazy-turndown.ts requires the real turndown by. */
const REAL_TURNDOWN = "computer-guest:turndown";
/** turndown's Node build (an ES module) and the DOM it imports, under turndown's own package. */
const TURNDOWN_NODE_BUILD = "lib/turndown.es.js";
const DOMINO = "@mixmark-io/domino";

/** The plugin; `guestDir` is worker/src/guest. */
export function lazyGuestModules(guestDir: string): Plugin {
  return {
    name: "lazy-guest-modules",
    setup(build) {
      let justBashImporter: string | undefined;
      build.onResolve({ filter: /^(turndown|node:zlib)$/ }, (args) => {
        if (!JUST_BASH.test(args.importer)) return undefined;
        if (args.path === "node:zlib") return { path: join(guestDir, "lazy-zlib.ts") };
        justBashImporter = args.importer;
        return { path: join(guestDir, "lazy-turndown.ts") };
      });
      build.onResolve({ filter: /^computer-guest:turndown$/ }, () => {
        if (justBashImporter === undefined)
          return { errors: [{ text: `${REAL_TURNDOWN}: just-bash's bundle did not import turndown` }] };
        // The turndown just-bash itself depends on, found from its bundle as Node would.
        const fromJustBash = createRequire(justBashImporter);
        const turndownDir = dirname(fromJustBash.resolve("turndown/package.json"));
        return { path: join(turndownDir, TURNDOWN_NODE_BUILD) };
      });
      build.onResolve({ filter: /^@mixmark-io\/domino$/ }, (args) => {
        if (!args.importer.endsWith(TURNDOWN_NODE_BUILD)) return undefined;
        return { path: createRequire(args.importer).resolve(DOMINO) };
      });
    },
  };
}
