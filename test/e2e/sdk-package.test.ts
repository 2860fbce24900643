/**
 * @computer/sdk as someone outside the repo gets it: `npm pack` of sdk/, `npm install` of the
 * tarball into a fresh folder (from the npm cache when it can), then the installed `computer` on
 * that folder's PATH against the local fleet, the SDK imported from a plain .mjs file, and its
 * .d.ts files type-checking a consumer under Node's own module resolution. Under node_modules
 * Node strips no types, so this fails whenever the package ships TypeScript.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Fleet, startFleet } from "@computer/fleet";
import { REPO_ROOT } from "@computer/fleet/wrangler-dev";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, runCli } from "./cli-run.ts";

const outside = mkdtempSync(join(tmpdir(), "computer-sdk-package-"));
const bin = join(outside, "node_modules", ".bin", "computer");
let fleet: Fleet;
let env: Record<string, string>;
let packed: string[];

/** The environment of a stranger's shell: no repo condition, no inherited Computer settings. */
function outsideEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = cliEnv({ ...env, ...extra });
  delete base.NODE_OPTIONS;
  return base;
}

/** Runs npm (the pinned Node first on PATH runs it) in `cwd`; answers its stdout. */
function npm(args: string[], cwd: string): string {
  return execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    env: outsideEnv(),
    encoding: "utf8",
    timeout: 300_000,
  });
}

beforeAll(async () => {
  fleet = await startFleet();
  env = {
    COMPUTER_URL: fleet.url,
    COMPUTER_TOKEN: fleet.adminToken,
    COMPUTER_CONFIG_DIR: join(outside, "config"),
  };
  // The tarball's name is npm pack's last line; its files come from tar, as any npm writes them.
  const tarball = npm(["pack", "--pack-destination", outside], join(REPO_ROOT, "sdk"))
    .trim()
    .split("\n")
    .at(-1);
  if (tarball === undefined || !tarball.endsWith(".tgz")) throw new Error(`npm pack answered ${tarball}`);
  packed = execFileSync("tar", ["-tzf", join(outside, tarball)], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((path) => path.replace(/^package\//, ""));
  npm(["install", "--prefer-offline", join(outside, tarball)], outside);
}, 600_000);

afterAll(async () => {
  await fleet?.stop();
  rmSync(outside, { recursive: true, force: true });
});

describe("the packed @computer/sdk", () => {
  it("ships the JavaScript and .d.ts build, no TypeScript sources or tests", () => {
    expect(packed).toContain("dist/index.js");
    expect(packed).toContain("dist/index.d.ts");
    expect(packed).toContain("dist/cli/main.js");
    expect(packed).toContain("dist/node/index.js");
    expect(packed.filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"))).toEqual([]);
    expect(packed.filter((path) => path.includes(".test."))).toEqual([]);
  });

  it("installing it puts `computer` on the folder's PATH, and --help runs", async () => {
    expect(readdirSync(join(outside, "node_modules", ".bin"))).toContain("computer");
    const run = await runCli(["--help"], env, { bin, cwd: outside });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: computer /);
  });

  it("the installed `computer` creates a computer, puts, lists and cats a file on the fleet", async () => {
    const cli = (args: string[], input?: string) =>
      runCli(args, env, input === undefined ? { bin, cwd: outside } : { bin, cwd: outside, input });
    const created = await cli(["create", "outside-demo", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: "outside-demo" });
    const put = await cli(
      ["--computer", "outside-demo", "put", "-", "notes/hello.txt"],
      "hello from outside\n",
    );
    expect(put.code, put.stderr).toBe(0);
    const listed = await cli(["ls", "notes", "--json", "--computer", "outside-demo"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      path: "/notes",
      entries: [{ name: "hello.txt", type: "file", size: 19 }],
    });
    const cat = await cli(["--computer", "outside-demo", "cat", "notes/hello.txt"]);
    expect({ code: cat.code, stdout: cat.stdout }).toEqual({ code: 0, stdout: "hello from outside\n" });
    const missing = await cli(["--computer", "outside-demo", "cat", "notes/nope.txt"]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^computer: ENOENT: /);
  });

  it("a plain .mjs file imports the SDK, its Node helpers and its contract", () => {
    writeFileSync(
      join(outside, "use-sdk.mjs"),
      [
        'import { ComputerClient, ComputerError } from "@computer/sdk";',
        'import { downloadFile } from "@computer/sdk/node";',
        'import { API_ERROR_CODES } from "@computer/sdk/contract";',
        'import { readFileSync } from "node:fs";',
        "const client = new ComputerClient({ url: process.env.COMPUTER_URL, token: process.env.COMPUTER_TOKEN });",
        'const demo = client.computer("outside-demo");',
        'await demo.files.write("notes/from-mjs.txt", "written by a plain .mjs file");',
        'await downloadFile(demo, "notes/from-mjs.txt", "from-mjs.txt");',
        "let code;",
        'try { await demo.files.readText("notes/nope.txt"); } catch (err) { code = err instanceof ComputerError && err.code; }',
        'console.log(JSON.stringify({ local: readFileSync("from-mjs.txt", "utf8"), code, known: API_ERROR_CODES.includes("ENOENT") }));',
      ].join("\n"),
    );
    const out = execFileSync(process.execPath, ["use-sdk.mjs"], {
      cwd: outside,
      env: outsideEnv(),
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({ local: "written by a plain .mjs file", code: "ENOENT", known: true });
  });

  it("its .d.ts files type-check a consumer under Node's module resolution", () => {
    writeFileSync(
      join(outside, "consumer.mts"),
      [
        'import { ComputerClient, type ExecResult } from "@computer/sdk";',
        'import { uploadFile } from "@computer/sdk/node";',
        'const client = new ComputerClient({ url: "http://127.0.0.1:1", token: "t" });',
        'const result: ExecResult = await client.computer("a").exec.run({ runtime: "shell", source: "true" });',
        'const written = await uploadFile(client.computer("a"), "local.txt", "remote.txt");',
        "console.log(result.exitCode, written);",
        "// @ts-expect-error: files.readText answers a string, not a number",
        'const wrong: number = await client.computer("a").files.readText("x");',
        "console.log(wrong);",
      ].join("\n"),
    );
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    const args = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext"];
    args.push("--target", "es2023", "--lib", "es2023,dom", "--types", "node");
    args.push("--typeRoots", join(REPO_ROOT, "node_modules", "@types"), "consumer.mts");
    execFileSync(process.execPath, [tsc, ...args], { cwd: outside, env: outsideEnv(), encoding: "utf8" });
  });
});
