/** find (glob *, **, ?), grep (literal, regex, ignoreCase, context, limit) and du. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import type { Vfs } from "./vfs.ts";

function sample(vfs: Vfs): void {
  vfs.writeFile("/README.md", "# Title\nsee src\n", { parents: true });
  vfs.writeFile("/src/main.ts", "import x\nconst a = 1;\nTODO: fix\nexport a\n", { parents: true });
  vfs.writeFile("/src/util.ts", "todo lower\nplain\n", { parents: true });
  vfs.writeFile("/src/lib/deep.ts", "a.c\nabc\nTODO deep\n", { parents: true });
  vfs.writeFile("/src/lib/data.json", "{}\n", { parents: true });
  vfs.writeFile("/docs/a.txt", "x", { parents: true });
  vfs.writeFile("/docs/ab.txt", "y", { parents: true });
  vfs.writeFile("/docs/a+b.txt", "z", { parents: true });
}

describe("find", () => {
  vfsTest("* matches within one level, ** spans levels, ? one character", (vfs) => {
    sample(vfs);
    expect(vfs.find("/", "*.md")).toEqual(["/README.md"]);
    expect(vfs.find("/", "*.ts")).toEqual([]);
    expect(vfs.find("/", "**/*.ts")).toEqual(["/src/lib/deep.ts", "/src/main.ts", "/src/util.ts"]);
    expect(vfs.find("/", "src/*.ts")).toEqual(["/src/main.ts", "/src/util.ts"]);
    expect(vfs.find("/", "src/**")).toEqual([
      "/src/lib",
      "/src/lib/data.json",
      "/src/lib/deep.ts",
      "/src/main.ts",
      "/src/util.ts",
    ]);
    expect(vfs.find("/docs", "a?.txt")).toEqual(["/docs/ab.txt"]);
    expect(vfs.find("/docs", "?.txt")).toEqual(["/docs/a.txt"]);
    expect(vfs.find("/docs", "a+b.txt")).toEqual(["/docs/a+b.txt"]);
    expect(vfs.find("/", "**")).toHaveLength(11);
  });

  vfsTest("searches below a given directory (through symlinks) and honours a limit", (vfs) => {
    sample(vfs);
    vfs.symlink("src", "/code");
    expect(vfs.find("/src", "*.ts")).toEqual(["/src/main.ts", "/src/util.ts"]);
    expect(vfs.find("/code", "lib/*")).toEqual(["/src/lib/data.json", "/src/lib/deep.ts"]);
    expect(vfs.find("/", "**/*.ts", 2)).toHaveLength(2);
  });

  vfsTest("errors: ENOENT, ENOTDIR, EINVAL for an empty glob", (vfs, { sql }) => {
    sample(vfs);
    expectFails(sql, "ENOENT", () => vfs.find("/missing", "*"));
    expectFails(sql, "ENOTDIR", () => vfs.find("/README.md", "*"));
    expectFails(sql, "EINVAL", () => vfs.find("/", ""));
  });
});

describe("grep", () => {
  vfsTest("literal patterns match special characters literally", (vfs) => {
    sample(vfs);
    const hits = vfs.grep("/", "a.c");
    expect(hits.map((m) => [m.path, m.line, m.text])).toEqual([["/src/lib/deep.ts", 1, "a.c"]]);
  });

  vfsTest("glob keeps only the files whose path relative to the searched directory matches", (vfs) => {
    sample(vfs);
    const only = (glob: string) => vfs.grep("/src", "^TODO", { regex: true, glob }).map((m) => m.path);
    expect(only("lib/*.ts")).toEqual(["/src/lib/deep.ts"]);
    expect(only("*.ts")).toEqual(["/src/main.ts"]);
    expect(only("**/*.ts")).toEqual(["/src/lib/deep.ts", "/src/main.ts"]);
    expect(only("**/*.md")).toEqual([]);
  });

  vfsTest("regex and ignoreCase", (vfs) => {
    sample(vfs);
    expect(vfs.grep("/", "a.c", { regex: true }).map((m) => m.text)).toEqual(["a.c", "abc"]);
    expect(vfs.grep("/src", "^TODO", { regex: true }).map((m) => `${m.path}:${m.line}`)).toEqual([
      "/src/lib/deep.ts:3",
      "/src/main.ts:3",
    ]);
    expect(vfs.grep("/src", "todo", { ignoreCase: true }).map((m) => `${m.path}:${m.line}`)).toEqual([
      "/src/lib/deep.ts:3",
      "/src/main.ts:3",
      "/src/util.ts:1",
    ]);
    expect(vfs.grep("/src", "todo").map((m) => m.path)).toEqual(["/src/util.ts"]);
  });

  vfsTest("context lines before and after, clipped at the file's edges", (vfs) => {
    sample(vfs);
    const [hit] = vfs.grep("/src/main.ts", "TODO", { context: 1 });
    expect(hit).toEqual({
      path: "/src/main.ts",
      line: 3,
      text: "TODO: fix",
      before: ["const a = 1;"],
      after: ["export a"],
    });
    const [edge] = vfs.grep("/src/main.ts", "import", { context: 5 });
    expect(edge?.before).toEqual([]);
    expect(edge?.after).toEqual(["const a = 1;", "TODO: fix", "export a"]);
  });

  vfsTest("a trailing newline does not make an extra empty line", (vfs) => {
    vfs.writeFile("/f", "one\ntwo\n");
    expect(vfs.grep("/f", "^$", { regex: true })).toEqual([]);
    vfs.writeFile("/g", "one\n\ntwo");
    expect(vfs.grep("/g", "^$", { regex: true }).map((m) => m.line)).toEqual([2]);
  });

  vfsTest("skips binary files and stops at the limit", (vfs) => {
    vfs.writeFile("/bin", new Uint8Array([104, 105, 116, 0, 104, 105, 116]));
    vfs.writeFile("/many", "hit\n".repeat(50));
    expect(vfs.grep("/bin", "hit")).toEqual([]);
    expect(vfs.grep("/", "hit", { limit: 7 })).toHaveLength(7);
    expect(vfs.grep("/", "hit")).toHaveLength(50);
  });

  vfsTest("errors: EINVAL for an empty pattern or a bad regex, ENOENT", (vfs, { sql }) => {
    sample(vfs);
    expectFails(sql, "EINVAL", () => vfs.grep("/", ""));
    expectFails(sql, "EINVAL", () => vfs.grep("/", "(", { regex: true }));
    expectFails(sql, "ENOENT", () => vfs.grep("/missing", "x"));
  });
});

describe("du", () => {
  vfsTest("sums stored bytes under a path, counting a hard-linked inode once", (vfs) => {
    sample(vfs);
    vfs.link("/src/main.ts", "/src/lib/main-link.ts");
    vfs.symlink("main.ts", "/src/sym");
    const all = vfs.du("/");
    expect(all.bytes).toBe(vfs.usage().usedBytes);
    expect(all.dirs).toBe(4);
    expect(all.files).toBe(10);
    const lib = vfs.du("/src/lib");
    expect(lib).toEqual({ bytes: 19 + 3 + 40, files: 3, dirs: 1 });
    expect(vfs.du("/README.md")).toEqual({ bytes: 16, files: 1, dirs: 0 });
  });

  vfsTest("does not follow a symlink and fails on a missing path", (vfs, { sql }) => {
    vfs.writeFile("/d/f", "12345", { parents: true });
    vfs.symlink("d", "/l");
    expect(vfs.du("/l")).toEqual({ bytes: 0, files: 1, dirs: 0 });
    expectFails(sql, "ENOENT", () => vfs.du("/missing"));
  });
});
