import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundleModules } from "./worker-bundle.ts";

/** The Worker's own rule (wrangler.jsonc) and wrangler's default Text and wasm rules. */
const RULES = [
  { type: "Text", include: ["**/*.guest.js", "**/*.console.js", "**/*.console.html"] },
  { type: "Text", include: ["**/*.txt", "**/*.html", "**/*.sql"] },
  { type: "CompiledWasm", include: ["**/*.wasm"] },
];

describe("bundleModules", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "worker-bundle-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (...names: string[]) => {
    for (const name of names) {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), "x");
    }
  };

  it("lists the entry first, types the others by the first matching rule, and leaves out maps and the metafile", () => {
    write(
      "a1-shell.guest.js",
      "index.js",
      "index.js.map",
      "bundle-meta.json",
      "README.md",
      "b2-index.console.html",
    );
    write("chunk.js", "sub/c3-app.console.js", "m.wasm");
    const modules = bundleModules(dir, RULES).map((m) => [m.type, m.path.slice(dir.length + 1)]);
    expect(modules[0]).toEqual(["ESModule", "index.js"]);
    expect(modules.slice(1).sort()).toEqual([
      ["CompiledWasm", "m.wasm"],
      ["ESModule", "chunk.js"],
      ["Text", "a1-shell.guest.js"],
      ["Text", "b2-index.console.html"],
      ["Text", "sub/c3-app.console.js"],
    ]);
  });

  it("refuses a folder without index.js and a module type Miniflare is not given here", () => {
    write("main.js");
    expect(() => bundleModules(dir, RULES)).toThrow(/no index\.js/);
    write("index.js", "old.cjs");
    expect(() => bundleModules(dir, [{ type: "CommonJS", include: ["**/*.cjs"] }])).toThrow(/CommonJS/);
  });
});
