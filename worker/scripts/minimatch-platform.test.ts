/**
 * minimatch-platform.ts on the minimatch the guest bundles: its default platform becomes
 * "posix" without reading `process` and the rest of the module is unchanged; a minimatch that no
 * longer has the binding, or no longer reads `process` for it, fails the build.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pinMinimatchPlatform } from "./minimatch-platform.ts";

/** minimatch's ES module as just-bash (worker/'s dependency) resolves it. */
const MINIMATCH = join(
  createRequire(import.meta.url).resolve("minimatch/package.json", {
    paths: [join(import.meta.dirname, "..")],
  }),
  "..",
  "dist",
  "esm",
  "index.js",
);

describe("pinMinimatchPlatform", () => {
  const source = readFileSync(MINIMATCH, "utf8");
  const pinned = pinMinimatchPlatform(source);

  it('sets minimatch\'s default platform to "posix" and changes nothing else', () => {
    expect(source).toMatch(/const defaultPlatform = \(typeof process/);
    const start = source.indexOf("const defaultPlatform = (");
    const end = source.indexOf(": 'posix')", start) + ": 'posix')".length;
    expect(pinned).toBe(`${source.slice(0, start)}const defaultPlatform = ("posix")${source.slice(end)}`);
  });

  it("refuses a minimatch without the binding, or one that no longer reads process for it", () => {
    expect(() => pinMinimatchPlatform("export const sep = '/';")).toThrow(
      /0 top-level `const defaultPlatform`/,
    );
    expect(() => pinMinimatchPlatform("const defaultPlatform = 'posix';")).toThrow(
      /no longer reads `process`/,
    );
  });
});
