/**
 * A build-time transform of a minified esbuild bundle: one of its lazily run module inits
 * (esbuild's `__esm` wrapper, `var a,b,init=H(()=>{a=…;b=…})`) runs at the first use of the
 * bindings it sets instead of when the bundle's top level calls it. The shell guest's build
 * applies it to just-bash's regular expression engine (lazy-guest-modules.ts), whose classes
 * and tables were built in every new shell isolate though most scripts match no regular
 * expression (docs/BENCH.md, "Shell cold start, second round").
 */
import { type Program as AcornProgram, parse } from "acorn";
import { simple } from "acorn-walk";
import { analyze, type Scope } from "eslint-scope";
import type * as ESTree from "estree";

/**
 * esbuild's minified `__esm(fn, res)`: `(fn,res)=>()=>(fn&&(res=fn(fn=0)),res)`, or since esbuild
 * 0.25 with a third parameter that keeps an init's error; any parameter names.
 */
const ESM_HELPER =
  /^\(\s*([\w$]+)\s*,\s*([\w$]+)\s*(?:,\s*[\w$]+\s*)?\)\s*=>\s*\(\s*\)\s*=>[\s\S]*?(?<![\w$])\1\s*&&\s*\(\s*\2\s*=\s*\1\s*\(\s*\1\s*=\s*0\s*\)\s*\)/;

/** Where a lazily run module init is in a bundle's source. */
export interface EsmInit {
  /** The variable the init is stored in (called as `name()`). */
  name: string;
  /** Source offsets of its function (`()=>{…}`), end exclusive. */
  start: number;
  end: number;
}

/** One replacement of `source.slice(start, end)`. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

function fail(message: string): never {
  throw new Error(`defer-esm-init: ${message}`);
}

function rangeOf(node: { type: string; range?: [number, number] }): [number, number] {
  return node.range ?? fail(`a ${node.type} without a source range`);
}

function parseBundle(source: string): ESTree.Program {
  const program: AcornProgram = parse(source, { ecmaVersion: "latest", sourceType: "module", ranges: true });
  // acorn's nodes are ESTree nodes (with `range` asked for above); its own types only differ in detail.
  return program as unknown as ESTree.Program;
}

/** The top-level `var` declarators of `program`, by name. */
function topLevelDeclarators(program: ESTree.Program): Map<string, ESTree.VariableDeclarator> {
  const byName = new Map<string, ESTree.VariableDeclarator>();
  for (const statement of program.body) {
    if (statement.type !== "VariableDeclaration") continue;
    for (const declarator of statement.declarations) {
      if (declarator.id.type === "Identifier") byName.set(declarator.id.name, declarator);
    }
  }
  return byName;
}

/** Every lazily run module init of the bundle: `name=H(()=>{…})` with H esbuild's `__esm`. */
function esmInits(source: string, program: ESTree.Program): Map<string, ESTree.ArrowFunctionExpression> {
  const declarators = topLevelDeclarators(program);
  const isHelper = (name: string): boolean => {
    const init = declarators.get(name)?.init;
    return init !== null && init !== undefined && ESM_HELPER.test(source.slice(...rangeOf(init)));
  };
  const inits = new Map<string, ESTree.ArrowFunctionExpression>();
  for (const [name, declarator] of declarators) {
    const call = declarator.init;
    if (call?.type !== "CallExpression" || call.callee.type !== "Identifier") continue;
    const [fn, ...rest] = call.arguments;
    if (fn?.type !== "ArrowFunctionExpression" || rest.length > 0 || fn.params.length > 0) continue;
    if (fn.body.type === "BlockStatement" && isHelper(call.callee.name)) inits.set(name, fn);
  }
  return inits;
}

/** The one init whose function's source contains `marker`; throws unless there is exactly one. */
function initWith(source: string, inits: Map<string, ESTree.ArrowFunctionExpression>, marker: string) {
  const found = [...inits].filter(([, fn]) => source.slice(...rangeOf(fn)).includes(marker));
  if (found.length !== 1) fail(`${found.length} module inits contain ${JSON.stringify(marker)}, not one`);
  const [[name, fn]] = found as [[string, ESTree.ArrowFunctionExpression]];
  return { name, fn };
}

/**
 * Finds the lazily run module init whose function contains `marker` (a string only that
 * module has) in a minified esbuild bundle; throws unless there is exactly one.
 */
export function findEsmInit(source: string, marker: string): EsmInit {
  const program = parseBundle(source);
  const { name, fn } = initWith(source, esmInits(source, program), marker);
  const [start, end] = rangeOf(fn);
  return { name, start, end };
}

/** `init()` as a statement of its own. */
function isInitCall(statement: ESTree.ExpressionStatement, init: string): boolean {
  const call = statement.expression;
  return (
    call.type === "CallExpression" &&
    call.callee.type === "Identifier" &&
    call.callee.name === init &&
    call.arguments.length === 0
  );
}

/**
 * Rewrites `source` (a minified esbuild bundle) so that the module init containing `marker`
 * runs at the first use of a binding it sets: its calls as statements (`init();`, in other
 * modules' inits or at the top level) are dropped, and every reference to one of its bindings
 * outside it becomes `(init(),binding)`, which runs it first (esbuild's init runs once). The
 * init must set only its own bindings and call no other init (then running it later than
 * before sees everything it saw then); a binding of it written or exported elsewhere is
 * refused. Throws, changing nothing, when the bundle is not of that shape.
 */
export function deferEsmInit(source: string, marker: string): string {
  const program = parseBundle(source);
  const inits = esmInits(source, program);
  const { name: init, fn } = initWith(source, inits, marker);
  const [fnStart, fnEnd] = rangeOf(fn);
  const inside = (node: { type: string; range?: [number, number] }): boolean => {
    const [start, end] = rangeOf(node);
    return start >= fnStart && end <= fnEnd;
  };
  if (fn.body.type !== "BlockStatement") fail("the init has no block body");
  for (const statement of fn.body.body) {
    if (statement.type === "ExpressionStatement" && statement.expression.type === "CallExpression") {
      const callee = statement.expression.callee;
      if (callee.type === "Identifier" && inits.has(callee.name))
        fail(`the init calls another init (${callee.name}): deferring it would defer that one too`);
    }
  }

  const scopes = analyze(program, { ecmaVersion: 2022, sourceType: "module" });
  const moduleScope: Scope | undefined = scopes.globalScope?.childScopes[0];
  const fnScope = scopes.acquire(fn);
  if (moduleScope?.type !== "module" || fnScope === null) fail("no module scope");
  const bindings = new Set(
    fnScope.references
      .filter((ref) => ref.isWrite() && ref.resolved?.scope === moduleScope)
      .flatMap((ref) => (ref.resolved === null ? [] : [ref.resolved])),
  );
  if (bindings.size === 0) fail("the init sets no binding of the bundle's top level");

  // Identifiers whose text is also a property's key (`{x}`) or an export's name (`export {x}`).
  const shorthands = new Set<number>();
  const exported = new Set<number>();
  const dropped: Edit[] = [];
  simple(program as unknown as AcornProgram, {
    Property(node) {
      if (node.shorthand && node.value.type === "Identifier") shorthands.add(node.value.start);
    },
    ExpressionStatement(node) {
      const statement = node as unknown as ESTree.ExpressionStatement;
      // `;`, not nothing: the call may be the whole body of an `if`.
      if (isInitCall(statement, init)) dropped.push({ start: node.start, end: node.end, text: ";" });
    },
  });

  for (const statement of program.body) {
    if (statement.type !== "ExportNamedDeclaration") continue;
    for (const specifier of statement.specifiers) exported.add(rangeOf(specifier.local)[0]);
  }

  const edits: Edit[] = [...dropped];
  for (const binding of bindings) {
    for (const ref of binding.references) {
      if (inside(ref.identifier)) continue;
      const name = ref.identifier.name;
      if (ref.isWrite()) fail(`${name}, a binding of the init, is written outside it`);
      const [start, end] = rangeOf(ref.identifier);
      if (exported.has(start)) fail(`${name}, a binding of the init, is exported`);
      const deferred = `(${init}(),${name})`;
      edits.push({ start, end, text: shorthands.has(start) ? `${name}:${deferred}` : deferred });
    }
  }
  return applyEdits(source, edits);
}

/** `source` with each edit's range replaced by its text (the ranges do not overlap). */
function applyEdits(source: string, edits: Edit[]): string {
  const pieces: string[] = [];
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    pieces.push(source.slice(at, edit.start), edit.text);
    at = edit.end;
  }
  pieces.push(source.slice(at));
  return pieces.join("");
}
