/**
 * turndown (html-to-markdown's converter) for just-bash, evaluated at its first use instead of
 * at the shell guest's start (scripts/lazy-guest-modules.ts points just-bash's `turndown` import
 * here). just-bash imports it at its bundle's top level, and turndown's module evaluation probes
 * for a DOM by throwing twice (`new undefined()`, then `document`); each error's stack has a
 * frame in the bundle's top level, whose source positions V8 then collects by parsing the whole
 * 1.3 MB module again: ~20 ms of CPU in every new shell isolate (docs/BENCH.md, "Shell cold
 * start"). Here turndown's code runs only inside html-to-markdown. The turndown required is its
 * Node build, which parses HTML with domino (an isolate has no `document` for the browser
 * build's parser): lazy-guest-modules.ts.
 */

/** The converter just-bash constructs (`new TurndownService(options)`), whatever its methods. */
type TurndownConstructor = new (options?: object) => object;

let real: TurndownConstructor | undefined;

function load(): TurndownConstructor {
  // A require, not an import: the bundler evaluates the module here, at the first call. The
  // name is the bundler's for the turndown just-bash itself resolves (lazy-guest-modules.ts).
  real ??= (require("computer-guest:turndown") as { default: TurndownConstructor }).default;
  return real;
}

/** Stands in for turndown's default export: `new` gives the real converter. */
// biome-ignore lint/style/noDefaultExport: just-bash imports turndown's default export.
export default class LazyTurndown {
  constructor(options?: object) {
    const Real = load();
    // biome-ignore lint/correctness/noConstructorReturn: `new LazyTurndown()` is the real converter.
    return new Real(options);
  }
}
