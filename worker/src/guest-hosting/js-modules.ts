/**
 * The module map of one js exec: the exec's source as a module in its cwd, every module it
 * reaches through relative (or /workspace-absolute) imports read from the computer's files,
 * and the generated modules that give it the computer: `node:fs/promises`, `node:fs`,
 * `computer:git`, `computer:artifacts`. workerd resolves an unknown scheme like `computer:` as
 * a relative path, so those two are also placed in every directory that holds a module.
 */

import { isFsError, type Vfs } from "@computer/vfs";
import { lexicalPath } from "../guest/lexical-path.ts";
import { ARTIFACT_FUNCTIONS, FS_PROMISES_FUNCTIONS, GIT_FUNCTIONS } from "./guest-wire.ts";

/** Name of the guest runtime module in the map. */
export const JS_GUEST_MODULE = "js.guest.js";
/** Most modules one exec may load from the computer. */
export const MAX_JS_MODULES = 500;
/** Most bytes of modules one exec may load from the computer. */
export const MAX_JS_MODULE_BYTES = 16 * 1024 * 1024;
/** The exec's own module, in its cwd. */
const MAIN_NAME = "__exec__.mjs";

/** One entry of the loader's module map. */
export type LoaderModule =
  | string
  | { js?: string; cjs?: string; text?: string; json?: unknown; data?: ArrayBuffer };

/** A collected module graph. */
export interface JsModules {
  /** Absolute specifier of the exec's module (`/workspace/.../__exec__.mjs`). */
  main: string;
  modules: Record<string, LoaderModule>;
}

/** Raised when the graph passes a limit. */
export class ModuleLimitError extends Error {
  readonly code = "EFBIG";
}

const STATIC = /\b(?:import|export)\b[^;'"`()]*?\bfrom\s*(["'])([^"'\n]+)\1/g;
const BARE_IMPORT = /\bimport\s*(["'])([^"'\n]+)\1/g;
const DYNAMIC = /\bimport\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g;

/** The specifiers `source` imports (a scan, not a parse: strings that look like imports count too). */
export function importSpecifiers(source: string): string[] {
  const found = new Set<string>();
  for (const pattern of [STATIC, BARE_IMPORT, DYNAMIC]) {
    for (const match of source.matchAll(pattern)) if (match[2] !== undefined) found.add(match[2]);
  }
  return [...found];
}

function dirOf(name: string): string {
  return name.slice(0, name.lastIndexOf("/"));
}

/** A module name: the lexical path without its leading slash. */
function normalize(path: string): string {
  return lexicalPath(path).slice(1);
}

/** The module name `specifier` (imported from module `from`) resolves to, if it is in the computer. */
export function resolveSpecifier(from: string, specifier: string): string | undefined {
  let name: string;
  if (specifier.startsWith("./") || specifier.startsWith("../"))
    name = normalize(`${dirOf(from)}/${specifier}`);
  else if (specifier.startsWith("/")) name = normalize(specifier);
  else return undefined;
  return name.startsWith("workspace/") ? name.replace(/[?#].*$/, "") : undefined;
}

function moduleOf(name: string, bytes: Uint8Array): LoaderModule {
  const text = () => new TextDecoder().decode(bytes);
  const ext = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
  switch (ext) {
    case "json":
      return { json: JSON.parse(text()) };
    case "cjs":
      return { cjs: text() };
    case "txt":
    case "md":
    case "html":
    case "css":
      return { text: text() };
    case "bin":
    case "wasm":
      return { data: bytes.slice().buffer };
    default:
      return { js: text() };
  }
}

function read(vfs: Vfs, name: string): Uint8Array | undefined {
  try {
    const path = `/${name.slice("workspace/".length)}`;
    return vfs.stat(path).type === "file" ? vfs.readFile(path) : undefined;
  } catch (err) {
    if (isFsError(err)) return undefined;
    throw err;
  }
}

function reexports(names: readonly string[], from: string): string {
  return names.map((n) => `export const ${n} = ${from}.${n};`).join("\n");
}

const FS_PROMISES_SHIM = `import { runtime } from "/${JS_GUEST_MODULE}";
const fs = runtime.fs;
export const constants = fs.constants;
${reexports(FS_PROMISES_FUNCTIONS, "fs")}
export default fs;
`;

const SYNC_NAMES = [
  ...FS_PROMISES_FUNCTIONS.map((n) => `${n}Sync`),
  "existsSync",
  "openSync",
  "readSync",
  "writeSync",
  "closeSync",
];

const FS_SHIM = `import { runtime } from "/${JS_GUEST_MODULE}";
const fs = runtime.fs;
export const promises = fs;
export const constants = fs.constants;
const callback = (name) => (...args) => {
  const done = args.pop();
  if (typeof done !== "function") throw new TypeError("fs." + name + ": the last argument must be a callback");
  fs[name](...args).then((value) => done(null, value), (err) => done(err));
};
${FS_PROMISES_FUNCTIONS.map((n) => `export const ${n} = callback(${JSON.stringify(n)});`).join("\n")}
const sync = (name) => () => { throw runtime.noSync(name); };
${SYNC_NAMES.map((n) => `export const ${n} = sync(${JSON.stringify(n)});`).join("\n")}
export default { promises, constants, ${[...FS_PROMISES_FUNCTIONS, ...SYNC_NAMES].join(", ")} };
`;

const GIT_SHIM = `import { runtime } from "/${JS_GUEST_MODULE}";
const git = runtime.git;
${reexports(GIT_FUNCTIONS, "git")}
export default git;
`;

const ARTIFACTS_SHIM = `import { runtime } from "/${JS_GUEST_MODULE}";
const artifacts = runtime.artifacts;
${reexports(ARTIFACT_FUNCTIONS, "artifacts")}
export default artifacts;
`;

/**
 * Collects the module graph of `source` run in `cwd` (a /workspace path). Modules the scan
 * finds but the computer lacks are left out: workerd then reports them as missing. Throws
 * ModuleLimitError past MAX_JS_MODULES / MAX_JS_MODULE_BYTES.
 */
export function collectModules(vfs: Vfs, cwd: string, source: string): JsModules {
  const mainName = `${cwd.slice(1)}/${MAIN_NAME}`;
  const modules: Record<string, LoaderModule> = { [mainName]: { js: source } };
  const dirs = new Set<string>([dirOf(mainName)]);
  const queue: [string, string][] = [[mainName, source]];
  let bytes = new TextEncoder().encode(source).byteLength;
  let count = 1;
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [from, text] = next;
    for (const specifier of importSpecifiers(text)) {
      const name = resolveSpecifier(from, specifier);
      if (name === undefined || name in modules) continue;
      const content = read(vfs, name);
      if (content === undefined) continue;
      count++;
      bytes += content.byteLength;
      if (count > MAX_JS_MODULES) throw new ModuleLimitError(`more than ${MAX_JS_MODULES} modules`);
      if (bytes > MAX_JS_MODULE_BYTES)
        throw new ModuleLimitError(`modules larger than ${MAX_JS_MODULE_BYTES} bytes`);
      const module = moduleOf(name, content);
      modules[name] = module;
      dirs.add(dirOf(name));
      if (typeof module === "object" && module.js !== undefined) queue.push([name, module.js]);
    }
  }
  modules["node:fs/promises"] = { js: FS_PROMISES_SHIM };
  modules["node:fs"] = { js: FS_SHIM };
  for (const dir of ["", ...dirs]) {
    const prefix = dir === "" ? "" : `${dir}/`;
    modules[`${prefix}computer:git`] = { js: GIT_SHIM };
    modules[`${prefix}computer:artifacts`] = { js: ARTIFACTS_SHIM };
  }
  return { main: `/${mainName}`, modules };
}
