/**
 * defer-esm-init.ts on bundles esbuild makes here the way just-bash's was made (minified ES
 * modules, a dynamically imported module wrapped in a lazily run init): the deferred module's
 * top level runs at the first use of one of its bindings, once, and not when the bundle is
 * evaluated; bundles it cannot defer safely are refused.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { deferEsmInit, findEsmInit } from "./defer-esm-init.ts";

const scratch = mkdtempSync(join(tmpdir(), "defer-esm-init-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The deferred module: its top level counts its runs in a global named after the test. */
const ENGINE = (counter: string) => `
export const NAME = "ENGINE-MARKER";
function build() {
  globalThis.${counter} = (globalThis.${counter} ?? 0) + 1;
  return [1, 2, 3];
}
export class Engine { static TABLE = build(); }
export const FLAGS = { global: 1 };
`;
/** Imports the engine statically, and uses one binding as a shorthand property. */
const WRAPPER = `
import { Engine, FLAGS } from "./engine.js";
export function compile(pattern) {
  if (!pattern) throw new Error("no pattern");
  return { table: Engine.TABLE, FLAGS, pattern };
}
`;
/** Both modules are imported dynamically too, so esbuild wraps each in a lazily run init. */
const MAIN = `
import { compile } from "./wrapper.js";
export { compile };
export const engine = () => import("./engine.js");
export const wrapper = () => import("./wrapper.js");
`;

let bundles = 0;

/** Bundles the three modules as just-bash's bundle was made; `counter` names the global. */
async function bundle(counter: string): Promise<string> {
  const dir = join(scratch, `src-${counter}`);
  mkdirSync(dir, { recursive: true });
  const files = { "engine.js": ENGINE(counter), "wrapper.js": WRAPPER, "main.js": MAIN };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const result = await build({
    entryPoints: [join(dir, "main.js")],
    bundle: true,
    format: "esm",
    minify: true,
    write: false,
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild wrote nothing");
  return output.text;
}

interface Main {
  compile(pattern: string): { table: number[]; FLAGS: { global: number }; pattern: string };
  engine(): Promise<{ Engine: { TABLE: number[] }; NAME: string }>;
}

/** Evaluates `source` as a module of its own. */
async function evaluate(source: string): Promise<Main> {
  const path = join(scratch, `bundle-${bundles++}.mjs`);
  writeFileSync(path, source);
  return (await import(pathToFileURL(path).href)) as Main;
}

function runs(counter: string): unknown {
  return Reflect.get(globalThis, counter);
}

describe("deferEsmInit", () => {
  it("the bundle as esbuild makes it runs the engine's top level when it is evaluated", async () => {
    const main = await evaluate(await bundle("eagerRuns"));
    expect(runs("eagerRuns")).toBe(1);
    expect(main.compile("a").table).toEqual([1, 2, 3]);
  });

  it("deferred, the engine's top level runs at the first use of a binding, once", async () => {
    const main = await evaluate(deferEsmInit(await bundle("deferredRuns"), "ENGINE-MARKER"));
    expect(runs("deferredRuns")).toBeUndefined();
    expect(main.compile("a")).toEqual({ table: [1, 2, 3], FLAGS: { global: 1 }, pattern: "a" });
    expect(runs("deferredRuns")).toBe(1);
    expect(main.compile("b").pattern).toBe("b");
    const engine = await main.engine();
    expect(engine.Engine.TABLE).toEqual([1, 2, 3]);
    expect(engine.NAME).toBe("ENGINE-MARKER");
    expect(runs("deferredRuns")).toBe(1);
  });

  it("the dynamic import alone runs it too", async () => {
    const main = await evaluate(deferEsmInit(await bundle("importRuns"), "ENGINE-MARKER"));
    expect(runs("importRuns")).toBeUndefined();
    expect((await main.engine()).NAME).toBe("ENGINE-MARKER");
    expect(runs("importRuns")).toBe(1);
  });

  it("findEsmInit finds the init's function in the bundle", async () => {
    const source = await bundle("found");
    const init = findEsmInit(source, "ENGINE-MARKER");
    expect(source.slice(init.start, init.end)).toMatch(/^\(\)=>\{.*ENGINE-MARKER.*\}$/s);
    expect(source).toContain(`${init.name}()`);
  });
});

/** esbuild's minified `__esm` helper, as just-bash's bundle has it. */
const HELPER = "var L=(e,t)=>()=>(e&&(t=e(e=0)),t);";

describe("deferEsmInit refuses what it cannot defer safely", () => {
  it.each([
    ["no init has the marker", `${HELPER}var A,i=L(()=>{A=1});i();`, /0 module inits contain/],
    ["two inits have it", `${HELPER}var A,i=L(()=>{A="M"}),B,j=L(()=>{B="M"});i();j();`, /2 module inits/],
    [
      "a binding is written elsewhere",
      `${HELPER}var A,i=L(()=>{A="M"});i();A=2;`,
      /A, .* is written outside/,
    ],
    ["a binding is exported", `${HELPER}var A,i=L(()=>{A="M"});i();export{A};`, /A, .* is exported/],
    [
      "it calls another init",
      `${HELPER}var B,j=L(()=>{B=1}),A,i=L(()=>{j();A="M"});i();`,
      /calls another init/,
    ],
    ["its helper is not esbuild's", `var L=f=>f;var A,i=L(()=>{A="M"});i();`, /0 module inits contain/],
  ])("%s", (_what, source, error) => {
    expect(() => deferEsmInit(source, `"M"`)).toThrow(error);
  });

  it("a call of the init that is the body of an `if` leaves an empty statement", () => {
    const out = deferEsmInit(
      `${HELPER}var A,i=L(()=>{A="M"});if(globalThis.x)i();export const a=()=>A;`,
      `"M"`,
    );
    expect(out).toContain("if(globalThis.x);");
    expect(out).toContain("export const a=()=>(i(),A);");
  });
});
