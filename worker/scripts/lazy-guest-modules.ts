/**
 * The esbuild plugin of the shell guest's build (build-guests.ts): what just-bash evaluates at its
 * bundle's top level, in every new shell isolate and so on the path of a new computer's first
 * shell exec (docs/BENCH.md, "Shell cold start"), is put off until a command needs it.
 * just-bash's `turndown` import goes to src/guest/host-turndown.ts, a converter that records
 * what html-to-markdown asks and has the DO convert it (turndown and domino are then no part of
 * the bundle); its `node:zlib` imports go to src/guest/lazy-zlib.ts, which loads node:zlib at
 * its first use; and its regular expression engine (re2js, the classes and tables of RE2's port)
 * is initialised at its first use instead of at the bundle's top level (defer-esm-init.ts).
 * Only just-bash's own imports are redirected. And minimatch's default platform is POSIX, as
 * the shell's is, instead of read from the global `process` at its top level: the first read of
 * `process` makes workerd build it from Node's modules (minimatch-platform.ts).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Plugin } from "esbuild";
import { deferEsmInit } from "./defer-esm-init.ts";
import { MINIMATCH_ESM, pinMinimatchPlatform } from "./minimatch-platform.ts";

/** Where just-bash's bundle lives: its imports, and only those, are redirected. */
const JUST_BASH = /[\\/]node_modules[\\/]just-bash[\\/]/;
/** just-bash's browser bundle (`just-bash/browser`), the one the guest imports. */
const JUST_BASH_BROWSER = /[\\/]node_modules[\\/]just-bash[\\/]dist[\\/]bundle[\\/]browser\.js$/;
/**
 * A string only re2js's module has (the name of its syntax error): it marks the module init the
 * build defers. A just-bash without it fails the build (defer-esm-init.ts finds no such init).
 */
export const RE2JS_MARKER = "RE2JSSyntaxException";

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
      build.onLoad({ filter: MINIMATCH_ESM }, async (args) => ({
        contents: pinMinimatchPlatform(await readFile(args.path, "utf8")),
        loader: "js",
      }));
      build.onLoad({ filter: JUST_BASH_BROWSER }, async (args) => ({
        contents: deferEsmInit(await readFile(args.path, "utf8"), RE2JS_MARKER),
        loader: "js",
      }));
    },
  };
}
