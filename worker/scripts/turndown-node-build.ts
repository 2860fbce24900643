/**
 * The esbuild plugin of the html-to-markdown converter's guest (build-guests.ts,
 * src/guest/turndown-guest.ts): `turndown` resolves to the turndown just-bash itself depends on,
 * in its Node build. The browser build, which the guest's `browser` condition would pick, parses
 * HTML with the page's `document`, which a Worker does not have ("document is not defined"); the
 * Node build parses it with domino, turndown's own DOM dependency, in plain JavaScript.
 * turndown's `browser` field maps domino away, so the plugin resolves turndown's import of it by
 * hand.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Plugin } from "esbuild";

/** turndown's Node build (an ES module) and the DOM it imports, under turndown's own package. */
const TURNDOWN_NODE_BUILD = "lib/turndown.es.js";
const DOMINO = "@mixmark-io/domino";

/** The turndown just-bash depends on, found from just-bash's package as Node would. */
function turndownNodeBuild(): string {
  const fromWorker = createRequire(import.meta.url);
  // just-bash's `exports` has no ./package.json: its main module is in the same package.
  const fromJustBash = createRequire(fromWorker.resolve("just-bash"));
  return join(dirname(fromJustBash.resolve("turndown/package.json")), TURNDOWN_NODE_BUILD);
}

/** The plugin. */
export function turndownNodeBuildPlugin(): Plugin {
  return {
    name: "turndown-node-build",
    setup(build) {
      build.onResolve({ filter: /^turndown$/ }, () => ({ path: turndownNodeBuild() }));
      build.onResolve({ filter: /^@mixmark-io\/domino$/ }, (args) => {
        if (!args.importer.endsWith(TURNDOWN_NODE_BUILD)) return undefined;
        return { path: createRequire(args.importer).resolve(DOMINO) };
      });
    },
  };
}
