import { describe, expect, it } from "vitest";
import { importSpecifiers, resolveSpecifier } from "./js-modules.ts";

describe("importSpecifiers", () => {
  it("finds static, re-export, bare and dynamic imports", () => {
    const source = `
      import a from "./a.js";
      import { b,
        c } from './b.js';
      import * as d from "node:fs/promises";
      import "./side-effect.js";
      export { e } from "./e.js";
      export * from "../f.js";
      const g = await import("./g.js");
      const h = "not an import";
    `;
    expect(importSpecifiers(source).sort()).toEqual(
      ["../f.js", "./a.js", "./b.js", "./e.js", "./g.js", "./side-effect.js", "node:fs/promises"].sort(),
    );
  });
});

describe("resolveSpecifier", () => {
  it("resolves relative and /workspace paths inside the workspace only", () => {
    expect(resolveSpecifier("workspace/app/__exec__.mjs", "./lib/x.js")).toBe("workspace/app/lib/x.js");
    expect(resolveSpecifier("workspace/app/lib/x.js", "../y.js")).toBe("workspace/app/y.js");
    expect(resolveSpecifier("workspace/a.js", "/workspace/b.js?v=1")).toBe("workspace/b.js");
    expect(resolveSpecifier("workspace/a.js", "../../etc/passwd")).toBeUndefined();
    expect(resolveSpecifier("workspace/a.js", "node:fs/promises")).toBeUndefined();
    expect(resolveSpecifier("workspace/a.js", "computer:git")).toBeUndefined();
    expect(resolveSpecifier("workspace/a.js", "lodash")).toBeUndefined();
  });
});
