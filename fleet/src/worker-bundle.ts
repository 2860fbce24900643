/**
 * The Computer Worker's deploy bundle, built as a deployment builds it: `wrangler deploy
 * --dry-run --outdir DIR` of worker/wrangler.jsonc runs the config's custom build (the guests,
 * the console) and wrangler's esbuild bundling, and writes the modules it would upload into
 * DIR. The local Worker (local-worker.ts) serves exactly these modules.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, matchesGlob, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, WORKER_CONFIG, wranglerEnv } from "./wrangler-dev.ts";

const run = promisify(execFile);

/** esbuild's metafile, as far as it is read here. */
const METAFILE = "bundle-meta.json";

/** A built bundle. */
export interface WorkerBundle {
  /** The directory the modules are in (`index.js` is the entry). */
  dir: string;
  /** The source files esbuild read (absolute, outside node_modules): what a rebuild depends on. */
  inputs: string[];
}

/**
 * Builds the Worker of `config` into `dir` (created if missing). Rejects with wrangler's
 * output when the build fails.
 */
export async function buildWorkerBundle(dir: string, config = WORKER_CONFIG): Promise<WorkerBundle> {
  const args = [
    `${REPO_ROOT}/node_modules/wrangler/bin/wrangler.js`,
    "deploy",
    "--dry-run",
    "--config",
    config,
    "--outdir",
    dir,
    "--metafile",
    join(dir, METAFILE),
  ];
  // Without this a dry run would try to build the container image.
  if (/"containers"\s*:/.test(readFileSync(config, "utf8"))) args.push("--containers-rollout=none");
  try {
    await run(process.execPath, args, { cwd: REPO_ROOT, env: wranglerEnv(), maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`wrangler deploy --dry-run of ${config} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
  return { dir, inputs: bundleInputs(dir, dirname(config)) };
}

/** The metafile's inputs: paths relative to esbuild's working directory, the config's folder. */
function bundleInputs(dir: string, workingDir: string): string[] {
  const meta = JSON.parse(readFileSync(join(dir, METAFILE), "utf8")) as { inputs?: Record<string, unknown> };
  return Object.keys(meta.inputs ?? {})
    .filter((path) => !path.includes("node_modules/") && !path.includes(":"))
    .map((path) => resolve(workingDir, path));
}

/** A module of the bundle as Miniflare takes it. */
export interface BundleModule {
  type: "ESModule" | "Text" | "Data" | "CompiledWasm";
  path: string;
}

/** Module rules of a wrangler config (`rules`): which files are imported as what. */
export interface ModuleRule {
  type: string;
  include: string[];
}

/**
 * The bundle's modules, the entry first: every file wrangler wrote into `dir` but the source
 * maps and the metafile, typed by `rules` (the config's, then wrangler's defaults), as
 * wrangler dev hands its bundle to Miniflare.
 */
export function bundleModules(dir: string, rules: readonly ModuleRule[]): BundleModule[] {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((name) => !name.endsWith(".map") && name !== METAFILE && name !== "README.md");
  if (!files.includes("index.js")) throw new Error(`${dir}: no index.js (not a wrangler bundle)`);
  const typed = (name: string): BundleModule => {
    const rule = rules.find((r) => r.include.some((glob) => matchesGlob(name, glob)));
    const type = rule?.type ?? "ESModule";
    if (type !== "ESModule" && type !== "Text" && type !== "Data" && type !== "CompiledWasm")
      throw new Error(`${dir}/${name}: module type ${type} is not served locally`);
    return { type, path: join(dir, name) };
  };
  return ["index.js", ...files.filter((name) => name !== "index.js")].map(typed);
}
