import { SOURCE_CONDITION } from "@computer/sdk/source-condition";
import { describe, expect, it } from "vitest";
import { checkImports, importSpecifiers, sourceFile, type Workspace } from "./check-boundaries.ts";

const root: Workspace = {
  dir: "",
  name: "computer",
  exports: new Map(),
  dependsOn: new Set(["@example/vfs"]),
};
const vfs: Workspace = {
  dir: "vfs",
  name: "@example/vfs",
  exports: new Map([
    [".", "vfs/src/index.ts"],
    ["./node", "vfs/src/node.ts"],
  ]),
  dependsOn: new Set(),
};
const bench: Workspace = { dir: "bench", name: "@example/bench", exports: new Map(), dependsOn: new Set() };
const workspaces = [root, vfs, bench];
const files = new Set([
  "vfs/src/index.ts",
  "vfs/src/node.ts",
  "vfs/src/sql.ts",
  "vfs/test/tree.ts",
  "bench/src/a.ts",
]);
const exists = (path: string) => files.has(path);

describe("importSpecifiers", () => {
  it("finds static, type-only, re-export, dynamic and mocked imports with their lines", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      'export { c } from "./c.ts";',
      'import "./side-effect.ts";',
      'const d = await import("./d.ts");',
      'vi.mock("./e.ts");',
    ].join("\n");
    expect(importSpecifiers(text)).toEqual([
      { specifier: "./a.ts", line: 1 },
      { specifier: "../b.ts", line: 2 },
      { specifier: "./c.ts", line: 3 },
      { specifier: "./side-effect.ts", line: 4 },
      { specifier: "./d.ts", line: 5 },
      { specifier: "./e.ts", line: 6 },
    ]);
  });
});

describe("checkImports", () => {
  it("allows relative imports inside a workspace, also from its tests", () => {
    const text = 'import { x } from "../test/tree.ts";\nimport { y } from "./sql.ts";';
    expect(checkImports("vfs/src/feed.test.ts", text, workspaces, exists)).toEqual([]);
  });

  it("reports a relative import into another workspace, naming the export to use", () => {
    const text = 'import { nodeSqlite } from "../../vfs/src/node.ts";';
    expect(checkImports("bench/src/a.ts", text, workspaces, exists)).toEqual([
      {
        path: "bench/src/a.ts",
        line: 1,
        problem: 'deep import of vfs/src/node.ts (workspace @example/vfs): import "@example/vfs/node"',
      },
    ]);
  });

  it("reports a deep import of a file the package does not export", () => {
    const text = 'import type { SqlLike } from "../../vfs/src/sql.ts";';
    const [offence] = checkImports("bench/src/a.ts", text, workspaces, exists);
    expect(offence?.problem).toBe(
      "deep import of vfs/src/sql.ts (workspace @example/vfs): export it from @example/vfs's package.json first",
    );
  });

  it("treats the root package (scripts/, test/) as a workspace of its own", () => {
    const text = 'import { a } from "../../bench/src/a.ts";';
    expect(checkImports("test/e2e/x.ts", text, workspaces, exists)).toHaveLength(1);
  });

  it("reports a package subpath that is not exported, and a package not depended on", () => {
    const text = 'import { a } from "@example/vfs/src/sql.ts";\nimport { b } from "@example/vfs";';
    expect(checkImports("test/e2e/x.ts", text, workspaces, exists).map((o) => o.problem)).toEqual([
      '@example/vfs/src/sql.ts: @example/vfs does not export "./src/sql.ts"',
    ]);
    expect(checkImports("bench/src/a.ts", 'import { b } from "@example/vfs";', workspaces, exists)).toEqual([
      {
        path: "bench/src/a.ts",
        line: 1,
        problem: "@example/vfs: @example/bench does not depend on @example/vfs",
      },
    ]);
  });

  it("leaves relative strings that name no file (a module in a test's source text) alone", () => {
    const text = 'const source = `import a from "../../vfs/src/missing.ts";`;';
    expect(checkImports("bench/src/a.ts", text, workspaces, exists)).toEqual([]);
  });
});

describe("sourceFile", () => {
  it("answers a plain target, the source condition's file, or the default's", () => {
    expect(sourceFile("./src/index.ts")).toBe("./src/index.ts");
    expect(
      sourceFile({
        [SOURCE_CONDITION]: "./src/index.ts",
        types: "./dist/index.d.ts",
        default: "./dist/index.js",
      }),
    ).toBe("./src/index.ts");
    expect(sourceFile({ default: "./dist/index.js" })).toBe("./dist/index.js");
  });

  it("refuses conditions that name no file for the repo", () => {
    expect(() => sourceFile({ types: "./dist/index.d.ts" })).toThrow(/neither/);
  });
});
