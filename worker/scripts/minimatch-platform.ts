/**
 * A build-time transform of minimatch's ES module for the shell guest: its default platform is
 * `posix` (the shell's) instead of read from the global `process` when the module is evaluated.
 * In a workerd isolate the first read of `process` has workerd build it from Node's modules
 * (process, buffer, inspect, errors and their helpers), in every new shell isolate
 * (docs/BENCH.md, "Shell cold start, third round"); minimatch's evaluation was the only read on
 * a new shell's path. minimatch only asks whether the platform is `win32`, which a workerd
 * isolate never is.
 */
import { parse } from "acorn";
import type * as ESTree from "estree";

/** minimatch's ES module, the one just-bash's browser bundle imports. */
export const MINIMATCH_ESM = /[\\/]node_modules[\\/]minimatch[\\/]dist[\\/]esm[\\/]index\.js$/;

/** The top-level binding minimatch keeps its default platform in. */
const BINDING = "defaultPlatform";

type Ranged<T> = T & { start: number; end: number };

/**
 * `source` (minimatch's index.js) with the initializer of its top-level `const defaultPlatform`
 * replaced by `"posix"`. Throws, and the build fails, where minimatch no longer has that binding
 * or no longer reads `process` for it: a new version is then looked at before it ships.
 */
export function pinMinimatchPlatform(source: string): string {
  const program = parse(source, { ecmaVersion: "latest", sourceType: "module" }) as unknown as ESTree.Program;
  const inits: Ranged<ESTree.Expression>[] = [];
  for (const statement of program.body) {
    if (statement.type !== "VariableDeclaration" || statement.kind !== "const") continue;
    for (const declarator of statement.declarations) {
      if (declarator.id.type === "Identifier" && declarator.id.name === BINDING && declarator.init)
        inits.push(declarator.init as Ranged<ESTree.Expression>);
    }
  }
  const [init, ...more] = inits;
  if (init === undefined || more.length > 0)
    throw new Error(`minimatch-platform: ${inits.length} top-level \`const ${BINDING}\` (one expected)`);
  if (!/\bprocess\b/.test(source.slice(init.start, init.end)))
    throw new Error(`minimatch-platform: \`${BINDING}\` no longer reads \`process\``);
  return `${source.slice(0, init.start)}"posix"${source.slice(init.end)}`;
}
