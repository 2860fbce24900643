/**
 * computerd as one file for the daemons `computerd host` starts. A daemon loads ~180 modules
 * (computerd, the vfs, the sdk's contract, capnweb); with Node's compile cache each still costs
 * a resolve, a read and a module record, ~200 ms of a spare's ~350 ms of CPU on its JS thread
 * here; one file of the same code took a spare from 420–450 to 310–370 ms of CPU (docs/BENCH.md,
 * session 22), a quarter of what a spare costs a 2-core host while the computer before it works.
 *
 * The host bundles the sources it runs from when it starts (esbuild, ~0.3 s), so its daemons run
 * exactly that code; a host without esbuild (it is a development dependency) starts them from
 * the sources, as `--bundle off` does. The file sits in computerd/ (bare imports left out, `ws`
 * and the pty addon, resolve from there), and every `import.meta.url` in a source is replaced by
 * that source's own URL, so the paths the code finds beside itself (the native programs, the
 * checkpoint worker, the port bridge, package.json) stay the sources'.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The package folder (computerd/). */
const PACKAGE = fileURLToPath(new URL("../../", import.meta.url));

/** Where the bundle goes: inside the package, so its bare imports resolve from node_modules. */
export const BUNDLE_FILE = join(PACKAGE, ".bundle", "computerd.mjs");

/** Left to Node: a native addon, and ws (whose optional native helpers esbuild cannot see). */
const EXTERNAL = ["@lydell/node-pty", "ws"];

/** `import` `.meta`, spelt so that this file's own text holds no such expression to replace. */
const META = ["import", "meta"].join(".");

/** A source's text with `import.meta` made its own: its URL, and `main` false (bin is the entry). */
export function ownImportMeta(text: string, file: string): string {
  return text
    .replaceAll(`${META}.url`, JSON.stringify(pathToFileURL(file).href))
    .replaceAll(`${META}.main`, "false");
}

/**
 * Bundles computerd's entry (bin/computerd.js) into `out` (written aside, then renamed: hosts
 * started together each write a whole file). Resolves with the command to run it (node + file),
 * or undefined when esbuild is not installed.
 */
export async function bundleDaemon(out = BUNDLE_FILE): Promise<string[] | undefined> {
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch {
    return undefined;
  }
  const result = await esbuild.build({
    entryPoints: [join(PACKAGE, "bin", "computerd.js")],
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    target: "node24",
    external: EXTERNAL,
    logLevel: "silent",
    // CommonJS inside the bundle (capnweb's dependencies) requires Node's modules.
    banner: {
      js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);',
    },
    plugins: [
      {
        name: "own-import-meta",
        setup(build) {
          build.onLoad({ filter: /\.(ts|js|mjs)$/ }, (args) => {
            if (args.path.includes("/node_modules/")) return undefined;
            const text = readFileSync(args.path, "utf8");
            if (!text.includes(META)) return undefined;
            return {
              contents: ownImportMeta(text, args.path),
              loader: args.path.endsWith(".ts") ? "ts" : "js",
            };
          });
        },
      },
    ],
  });
  const [file] = result.outputFiles;
  if (file === undefined) throw new Error("esbuild wrote no bundle");
  mkdirSync(dirname(out), { recursive: true });
  const aside = `${out}.${process.pid}`;
  writeFileSync(aside, file.contents);
  renameSync(aside, out);
  return [process.execPath, out];
}
