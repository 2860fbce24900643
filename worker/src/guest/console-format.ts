/**
 * What `console.log(...args)` prints in the js guest: exactly Node's `util.format(...args)`,
 * without loading node:util into every exec's fresh isolate. Loading node:util costs ~2 ms of
 * the isolate's start (measured with the Worker Loader, docs/BENCH.md "Exec round trip and
 * cold start"), and most execs log nothing or only strings and numbers, which are formatted
 * here as util.format would; anything else (objects, `%` format strings, bigints) loads
 * node:util on first use, through `process.getBuiltinModule`, synchronously.
 */

type Format = (...args: unknown[]) => string;

let utilFormat: Format | undefined;

function nodeFormat(): Format {
  if (utilFormat === undefined) {
    const process = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
    const util = process?.getBuiltinModule?.("node:util") as { format?: Format } | undefined;
    if (typeof util?.format !== "function") throw new Error("node:util is not available");
    utilFormat = util.format;
  }
  return utilFormat;
}

/** How util.format shows a primitive that is not the format string, or undefined when it is not a simple one. */
function simple(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      // inspect(-0) is "-0"; String(-0) is "0".
      return Object.is(value, -0) ? "-0" : String(value);
    case "boolean":
    case "undefined":
      return String(value);
    default:
      return value === null ? "null" : undefined;
  }
}

/** `util.format(...args)`. */
export function formatLog(args: readonly unknown[]): string {
  const first = args[0];
  // A string with a `%` is a format string (%s, %d, %o, %%...): util.format's own job.
  if (typeof first === "string" && first.includes("%")) return nodeFormat()(...args);
  const parts: string[] = [];
  for (const arg of args) {
    const text = simple(arg);
    if (text === undefined) return nodeFormat()(...args);
    parts.push(text);
  }
  return parts.join(" ");
}
