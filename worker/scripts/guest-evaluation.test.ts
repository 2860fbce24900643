/**
 * The shell guest's start (docs/BENCH.md, "Shell cold start"): evaluating the built bundle throws
 * no error and constructs none. An error made (thrown and caught, or only made) while the
 * bundle's top level runs has that top level on its stack, and V8 collects its source positions
 * by parsing the whole 1.3 MB module again, ~20 ms of CPU in every new shell isolate; a
 * dependency's new version can bring such a probe back (lazy-guest-modules.ts keeps turndown's
 * out). And neither the evaluation nor a spare's warm-up (`true`) runs the module init of
 * just-bash's regular expression engine, which the build defers to the first command that needs
 * it ("Shell cold start, second round"). Nor do they read the global `process` or `Buffer`, which
 * workerd builds from Node's modules at their first read ("Shell cold start, third round"). Node
 * evaluates the bundle here, with the guest's `cloudflare:workers` a stand-in: like workerd it has
 * no `window` or `document`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, expect, it } from "vitest";
import { buildGuests, GUESTS_DIR } from "./build-guests.ts";
import { findEsmInit } from "./defer-esm-init.ts";
import { lazyGuestModules, RE2JS_MARKER } from "./lazy-guest-modules.ts";

const scratch = mkdtempSync(join(tmpdir(), "guest-evaluation-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Imports `bundle` with the inspector pausing on every exception; prints what was thrown. */
const PROBE = `
import { Session } from "node:inspector";
const session = new Session();
session.connect();
const thrown = [];
// An Error only made (not thrown) captures its stack too: count those made by the bundle's code.
const made = [];
const RealError = Error;
globalThis.Error = new Proxy(RealError, {
  construct(target, args, newTarget) {
    made.push(String(args[0]).split("\\n")[0]);
    return Reflect.construct(target, args, newTarget);
  },
});
session.on("Debugger.paused", ({ params }) => {
  thrown.push(\`\${params.data?.description?.split("\\n")[0]} (in \${params.callFrames[0]?.functionName || "top level"})\`);
  session.post("Debugger.resume");
});
session.post("Debugger.enable");
session.post("Debugger.setPauseOnExceptions", { state: "all" });
const guest = await import(process.argv[1]);
globalThis.Error = RealError;
session.post("Debugger.disable");
console.log(JSON.stringify({ thrown, made, exports: Object.keys(guest) }));
`;

/** worker/, where just-bash resolves from. */
const WORKER_DIR = join(import.meta.dirname, "..");

const WORKERS_STAND_IN = "data:text/javascript,export class WorkerEntrypoint {} export class RpcTarget {}";

it("evaluating the shell guest bundle throws no error and makes none", { timeout: 60_000 }, async () => {
  await buildGuests();
  const source = readFileSync(join(GUESTS_DIR, "shell.guest.js"), "utf8");
  const bundle = join(scratch, "shell.guest.mjs");
  writeFileSync(bundle, source.replaceAll('"cloudflare:workers"', JSON.stringify(WORKERS_STAND_IN)));
  const output = execFileSync(process.execPath, ["--input-type=module", "--eval", PROBE, bundle], {
    encoding: "utf8",
  });
  const { thrown, made, exports } = JSON.parse(output) as {
    thrown: string[];
    made: string[];
    exports: string[];
  };
  expect(exports).toContain("ShellGuest");
  expect(thrown).toEqual([]);
  // e.g. modern-tar's `new Error("Tar archive is truncated.")` at its top level (tar-command.ts
  // is imported lazily for it).
  expect(made).toEqual([]);
});

/**
 * Imports `bundle` and runs a spare's warm-up (`true` in a scratch tree) with the global
 * `process` and `Buffer` watched; prints which of them the bundle's code read, and where.
 */
const GLOBALS_PROBE = `
const bundle = process.argv[1];
const watched = ["process", "Buffer"];
const reads = [];
const saved = watched.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]);
for (const [name, descriptor] of saved) {
  const value = globalThis[name];
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get() {
      // The bundle's own reads only (Node's modules read Buffer too, e.g. undici's, which
      // the bundle's first read of globalThis.Headers loads).
      const caller = new Error().stack.split("\\n")[2] ?? "";
      if (caller.includes(bundle)) reads.push(name + " " + caller.trim());
      return value;
    },
  });
}
const { ShellGuest } = await import(bundle);
await new ShellGuest().warm();
for (const [name, descriptor] of saved) Object.defineProperty(globalThis, name, descriptor);
console.log(JSON.stringify(reads));
`;

it("the shell guest's evaluation and warm-up read neither process nor Buffer", {
  timeout: 60_000,
}, async () => {
  await buildGuests();
  const source = readFileSync(join(GUESTS_DIR, "shell.guest.js"), "utf8");
  const bundle = join(scratch, "shell.guest.globals.mjs");
  writeFileSync(bundle, source.replaceAll('"cloudflare:workers"', JSON.stringify(WORKERS_STAND_IN)));
  const output = execFileSync(process.execPath, ["--input-type=module", "--eval", GLOBALS_PROBE, bundle], {
    encoding: "utf8",
  });
  // e.g. minimatch's default platform, read from `process` at its top level (minimatch-platform.ts).
  expect(JSON.parse(output)).toEqual([]);
});

/**
 * Imports `entry` under V8's precise coverage, then runs each of its `steps` (an exported
 * function's name) in turn; prints how often the function of `bundle` starting at offset
 * `initAt` ran during the import and during each step (taking V8's coverage resets its counts).
 */
const INIT_PROBE = `
import { Session } from "node:inspector/promises";
import { pathToFileURL } from "node:url";
const [bundle, initAt, entry, ...steps] = process.argv.slice(1);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
async function runs() {
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const script = result.find((s) => s.url === pathToFileURL(bundle).href);
  const fn = script?.functions.find((f) => f.ranges[0]?.startOffset === Number(initAt));
  return fn?.ranges[0]?.count ?? 0;
}
const guest = await import(entry);
const counts = { import: await runs() };
const outputs = {};
for (const step of steps) {
  outputs[step] = await guest[step]();
  counts[step] = await runs();
}
console.log(JSON.stringify({ counts, outputs }));
`;

/**
 * Runs INIT_PROBE on `source` (written to `name`), whose init holding RE2JS_MARKER is watched;
 * `entry` (a module importing it as `./${name}`) has the steps, else `source` itself.
 */
function initRuns(name: string, source: string, steps: string[], entry?: string) {
  const bundle = join(scratch, name);
  writeFileSync(bundle, source);
  const entryPath = entry === undefined ? bundle : join(scratch, `steps-${name}`);
  if (entry !== undefined) writeFileSync(entryPath, entry);
  const init = findEsmInit(source, RE2JS_MARKER);
  const output = execFileSync(
    process.execPath,
    ["--input-type=module", "--eval", INIT_PROBE, bundle, String(init.start), entryPath, ...steps],
    { encoding: "utf8" },
  );
  return JSON.parse(output) as { counts: Record<string, number>; outputs: Record<string, unknown> };
}

it("the shell guest's evaluation and warm-up do not run re2js's module init", {
  timeout: 60_000,
}, async () => {
  await buildGuests();
  const source = readFileSync(join(GUESTS_DIR, "shell.guest.js"), "utf8").replaceAll(
    '"cloudflare:workers"',
    JSON.stringify(WORKERS_STAND_IN),
  );
  const entry = `import { ShellGuest } from "./shell.guest.init.mjs";
export async function warm() { await new ShellGuest().warm(); return "warm"; }`;
  const { counts, outputs } = initRuns("shell.guest.init.mjs", source, ["warm"], entry);
  expect(outputs).toEqual({ warm: "warm" });
  expect(counts).toEqual({ import: 0, warm: 0 });
});

it("just-bash as the guest builds it runs re2js's module init at the first regular expression", {
  timeout: 60_000,
}, async () => {
  // just-bash/browser through the shell guest's plugin, with a script that needs no regular
  // expression and then one that does (grep's pattern).
  const result = await build({
    stdin: {
      contents: `import { Bash } from "just-bash/browser";
const bash = new Bash();
export async function plain() { return (await bash.exec("echo plain; true")).stdout; }
export async function grep() { return (await bash.exec("printf 'abc\\nxyz\\n' | grep b")).stdout; }
`,
      resolveDir: WORKER_DIR,
      loader: "js",
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    minify: true,
    write: false,
    plugins: [lazyGuestModules(join(WORKER_DIR, "src", "guest"))],
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild wrote nothing");
  const { counts, outputs } = initRuns("just-bash.init.mjs", output.text, ["plain", "grep"]);
  expect(outputs).toEqual({ plain: "plain\n", grep: "abc\n" });
  expect(counts).toEqual({ import: 0, plain: 0, grep: 1 });
});
