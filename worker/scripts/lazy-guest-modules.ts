/**
 * The esbuild plugin of the shell guest's build (build-guests.ts): two modules just-bash imports
 * at its bundle's top level are not compiled and evaluated in every new shell isolate, whose
 * start is on the path of a new computer's first shell exec (docs/BENCH.md, "Shell cold start").
 * just-bash's `turndown` import goes to src/guest/host-turndown.ts, a converter that records
 * what html-to-markdown asks and has the DO convert it (turndown and domino are then no part of
 * the bundle); its `node:zlib` imports go to src/guest/lazy-zlib.ts, which loads node:zlib at
 * its first use. Only just-bash's own imports are redirected.
 */
import { join } from "node:path";
import type { Plugin } from "esbuild";

/** Where just-bash's bundle lives: its imports, and only those, are redirected. */
const JUST_BASH = /[\\/]node_modules[\\/]just-bash[\\/]/;

/** The plugin; `guestDir` is worker/src/guest. */
export function lazyGuestModules(guestDir: string): Plugin {
  return {
    name: "lazy-guest-modules",
    setup(build) {
      build.onResolve({ filter: /^(turndown|node:zlib)$/ }, (args) => {
        if (!JUST_BASH.test(args.importer)) return undefined;
        if (args.path === "node:zlib") return { path: join(guestDir, "lazy-zlib.ts") };
        return { path: join(guestDir, "host-turndown.ts") };
      });
    },
  };
}
