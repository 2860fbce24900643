/**
 * The js runtime (an ES module in a fresh Dynamic Worker per exec): node:fs/promises with
 * Node's semantics and error codes, node:fs, relative imports from the computer, computer:git,
 * return values, console, process.env, module errors, and the source cap.
 */
import { describe, expect, it } from "vitest";
import { apiJson, createComputer, expectError, readText, writeFile } from "./helpers.ts";
import { runOk, runOn } from "./runtime-helpers.ts";

describe("js runtime: node:fs/promises", () => {
  it("reads, writes and lists the computer's files with Node's return values", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "hello\n");
    const { value } = await runOk(
      id,
      "js",
      `import { readFile, writeFile, appendFile, readdir, stat, mkdir, rm, rename, copyFile, truncate, symlink,
               readlink, realpath, utimes, access, lstat } from "node:fs/promises";
       import fs from "node:fs/promises";
       import { readFile as bare } from "fs/promises";
       export default async () => {
         const buf = await readFile("a.txt");
         const first = await mkdir("x/y/z", { recursive: true });
         await writeFile("x/y/z/n.txt", "1");
         await appendFile("x/y/z/n.txt", "2");
         await rename("x/y/z/n.txt", "x/n.txt");
         await copyFile("x/n.txt", "x/copy.txt");
         await truncate("x/copy.txt", 1);
         await symlink("n.txt", "x/link");
         await utimes("x/n.txt", new Date(1_000_000), new Date(2_000_000));
         const s = await stat("/workspace/x/n.txt");
         const dir = await readdir("x", { withFileTypes: true });
         await rm("x/y", { recursive: true });
         await access("x/n.txt");
         return {
           isBuffer: buf.constructor.name, text: buf.toString(), bare: await bare("a.txt", "utf8"), fsDefault: typeof fs.stat,
           first, n: await readFile("x/n.txt", "utf8"), copy: await readFile("x/copy.txt", { encoding: "utf8" }),
           size: s.size, mode: s.mode.toString(8), file: s.isFile(), mtimeMs: s.mtimeMs,
           dir: dir.map((d) => [d.name, d.isDirectory(), d.isSymbolicLink(), d.parentPath]),
           after: await readdir("x"), link: await readlink("x/link"), real: await realpath("x/link"),
           lstat: (await lstat("x/link")).isSymbolicLink(),
         };
       }`,
    );
    expect(value).toEqual({
      isBuffer: "Buffer",
      text: "hello\n",
      bare: "hello\n",
      fsDefault: "function",
      first: "/workspace/x",
      n: "12",
      copy: "1",
      size: 2,
      mode: "100644",
      file: true,
      mtimeMs: 2_000_000,
      dir: [
        ["copy.txt", false, false, "/workspace/x"],
        ["link", false, true, "/workspace/x"],
        ["n.txt", false, false, "/workspace/x"],
        ["y", true, false, "/workspace/x"],
      ],
      after: ["copy.txt", "link", "n.txt"],
      link: "n.txt",
      real: "/workspace/x/n.txt",
      lstat: true,
    });
    expect(await readText(id, "x/n.txt")).toBe("12");
  });

  it("fails like Node: code, errno, syscall and path", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "A");
    await writeFile(id, "d/inner.txt", "I");
    const { value } = await runOk(
      id,
      "js",
      `import * as fs from "node:fs/promises";
       const attempt = async (fn) => { try { await fn(); return "ok"; } catch (e) { return [e.code, e.errno, e.syscall, e.path]; } };
       export default async () => ({
         missing: await attempt(() => fs.readFile("nope.txt")),
         exists: await attempt(() => fs.mkdir("d")),
         notDir: await attempt(() => fs.readFile("a.txt/x")),
         isDir: await attempt(() => fs.readFile("d")),
         notEmpty: await attempt(() => fs.rmdir("d")),
         exclusive: await attempt(() => fs.writeFile("a.txt", "B", { flag: "wx" })),
         copyExcl: await attempt(() => fs.copyFile("a.txt", "d/inner.txt", fs.constants.COPYFILE_EXCL)),
         access: await attempt(() => fs.access("nope")),
         outside: await attempt(() => fs.readFile("/etc/passwd")),
         rmForce: await attempt(() => fs.rm("nope", { force: true })),
       });`,
    );
    expect(value).toEqual({
      missing: ["ENOENT", -2, "open", "/workspace/nope.txt"],
      exists: ["EEXIST", -17, "mkdir", "/workspace/d"],
      notDir: ["ENOTDIR", -20, "open", "/workspace/a.txt/x"],
      isDir: ["EISDIR", -21, "open", "/workspace/d"],
      notEmpty: ["ENOTEMPTY", -39, "rmdir", "/workspace/d"],
      exclusive: ["EEXIST", -17, "open", "/workspace/a.txt"],
      copyExcl: ["EEXIST", -17, "copyfile", "/workspace/a.txt"],
      access: ["ENOENT", -2, "access", "/workspace/nope"],
      outside: ["ENOENT", -2, "open", "/etc/passwd"],
      rmForce: "ok",
    });
  });

  it("node:fs has promises and callbacks; its sync functions say ENOSYS", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "A");
    const { value } = await runOk(
      id,
      "js",
      `import fs, { promises, readFile, existsSync } from "node:fs";
       export default async () => {
         const viaCallback = await new Promise((resolve, reject) => readFile("a.txt", "utf8", (err, text) => (err ? reject(err) : resolve(text))));
         let sync; try { existsSync("a.txt"); } catch (e) { sync = e.code; }
         return [await promises.readFile("a.txt", "utf8"), viaCallback, sync, typeof fs.readFileSync];
       }`,
    );
    expect(value).toEqual(["A", "A", "ENOSYS", "function"]);
  });
});

describe("js runtime: modules, values, console", () => {
  it("imports modules stored in the computer, relative to the cwd, with their own relative imports", async () => {
    const id = await createComputer();
    await writeFile(
      id,
      "app/lib/math.js",
      'import { base } from "../config.js";\nexport const add = (n) => n + base;\n',
    );
    await writeFile(id, "app/config.js", "export const base = 40;\n");
    await writeFile(
      id,
      "app/lib/git-user.js",
      'import { log } from "computer:git";\nexport const count = async () => (await log()).length;\n',
    );
    const result = await runOk(
      id,
      "js",
      `import { add } from "./lib/math.js";
       import { init, add as stage, commit, status } from "computer:git";
       import { count } from "./lib/git-user.js";
       export default async (input) => {
         await init();
         await stage({ all: true });
         await commit({ message: "first" });
         return { sum: add(input.n), commits: await count(), clean: (await status()).porcelain };
       }`,
      { cwd: "app", input: { n: 2 } },
    );
    expect(result.value).toEqual({ sum: 42, commits: 1, clean: "" });
    expect(await readText(id, "app/.git/HEAD")).toBe("ref: refs/heads/main\n");
  });

  it("each exec is a fresh worker; console and process.env work", async () => {
    const id = await createComputer();
    const source = `export default (input, ctx) => {
      globalThis.runs = (globalThis.runs ?? 0) + 1;
      console.log("obj", { a: [1, 2] }, 3);
      console.warn("careful");
      return [globalThis.runs, process.env.MODE, ctx.env.MODE, ctx.execId.startsWith("ex_")];
    }`;
    const first = await runOk(id, "js", source, { env: { MODE: "test" } });
    const second = await runOk(id, "js", source, { env: { MODE: "test" } });
    expect(first.value).toEqual([1, "test", "test", true]);
    expect(second.value).toEqual([1, "test", "test", true]);
    expect(first.stdout).toBe("obj { a: [ 1, 2 ] } 3\n");
    expect(first.stderr).toBe("careful\n");
  });

  it("module problems are failed results with the reason on stderr", async () => {
    const id = await createComputer();
    const noDefault = await runOn(id, "js", "export const x = 1;");
    expect(noDefault).toMatchObject({ status: "failed", exitCode: 1 });
    expect(noDefault.stderr).toContain("default export is not a function");
    const syntax = await runOn(id, "js", "export default () => {");
    expect(syntax).toMatchObject({ status: "failed" });
    const missing = await runOn(id, "js", 'import "./nowhere.js"; export default () => 1;');
    expect(missing.status).toBe("failed");
    expect(missing.stderr).toContain("nowhere.js");
    for (const value of ["() => 1", "10n", "(() => { const a = {}; a.a = a; return a; })()"]) {
      const unsendable = await runOn(id, "js", `export default () => ${value};`);
      expect(unsendable, value).toMatchObject({ status: "failed", exitCode: 1 });
      expect(unsendable.stderr).toContain("cannot be sent as JSON");
    }
    const dated = await runOk(id, "js", "export default () => ({ at: new Date(0), list: [1, undefined] });");
    expect(dated.value).toEqual({ at: "1970-01-01T00:00:00.000Z", list: [1, null] });
  });

  it("a source over the cap is refused before anything runs", async () => {
    const id = await createComputer();
    const source = `export default () => ${JSON.stringify("x".repeat(300 * 1024))};`;
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/exec`, { runtime: "js", source }),
      400,
      "EINVAL",
    );
  });

  it("fetch reaches nothing while egress is none", async () => {
    const id = await createComputer();
    const result = await runOk(
      id,
      "js",
      `export default () => fetch("http://127.0.0.1:9/").then(() => "reached", (e) => "refused: " + e.message);`,
    );
    expect(String(result.value)).toMatch(/^refused: /);
  });
});
