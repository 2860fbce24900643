/**
 * The esbuild plugin of the shell guest's build (build-guests.ts): two modules just-bash imports
 * at its bundle's top level are evaluated at their first use instead of in every new shell
 * isolate, whose start is on the path of a new computer's first shell exec (docs/BENCH.md,
 * "Shell cold start"). just-bash's `turndown` import goes to src/guest/lazy-turndown.ts, which
 * requires the turndown just-bash resolves under `computer-guest:turndown` (a require: the
 * bundler then evaluates it where it is called); its `node:zlib` imports go to
 * src/guest/lazy-zlib.ts. Only just-bash's own imports are redirected.
 */
import { dirname, join } from "node:path";
import type { Plugin } from "esbuild";

/** Where just-bash's bundle lives: its imports, and only those, are redirected. */
const JUST_BASH = /[\\/]node_modules[\\/]just-bash[\\/]/;
/** The name lazy-turndown.ts requires the real turndown by. */
const REAL_TURNDOWN = "computer-guest:turndown";

/** The plugin; `guestDir` is worker/src/guest. */
export function lazyGuestModules(guestDir: string): Plugin {
  return {
    name: "lazy-guest-modules",
    setup(build) {
      let justBashImporter: string | undefined;
      build.onResolve({ filter: /^(turndown|node:zlib)$/ }, (args) => {
        if (!JUST_BASH.test(args.importer) || args.pluginData === REAL_TURNDOWN) return undefined;
        if (args.path === "node:zlib") return { path: join(guestDir, "lazy-zlib.ts") };
        justBashImporter = args.importer;
        return { path: join(guestDir, "lazy-turndown.ts") };
      });
      build.onResolve({ filter: /^computer-guest:turndown$/ }, async () => {
        if (justBashImporter === undefined)
          return { errors: [{ text: `${REAL_TURNDOWN}: just-bash's bundle did not import turndown` }] };
        // Resolved as just-bash's import is (its ES module), though lazy-turndown.ts requires it.
        const real = await build.resolve("turndown", {
          kind: "import-statement",
          importer: justBashImporter,
          resolveDir: dirname(justBashImporter),
          pluginData: REAL_TURNDOWN,
        });
        return real.errors.length > 0
          ? { errors: real.errors }
          : { path: real.path, sideEffects: real.sideEffects };
      });
    },
  };
}
