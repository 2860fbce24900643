/**
 * The daemons' bundle: one file that runs as the sources do, its paths still the sources'.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLE_FILE, bundleDaemon, ownImportMeta } from "./daemon-bundle.ts";

const out = join(BUNDLE_FILE, "..", `test-${process.pid}.mjs`);
const bin = fileURLToPath(new URL("../../bin/computerd.js", import.meta.url));

afterAll(() => rmSync(out, { force: true }));

describe("the daemons' bundle", () => {
  it("gives each source its own import.meta", () => {
    const meta = ["import", "meta"].join(".");
    const text = `const a = new URL("./x.ts", ${meta}.url);\nif (${meta}.main) run();\n`;
    expect(ownImportMeta(text, "/src/exec/spawner.ts")).toBe(
      'const a = new URL("./x.ts", "file:///src/exec/spawner.ts");\nif (false) run();\n',
    );
  });

  it("is one file that answers as the sources do, and starts a spare", async () => {
    const command = await bundleDaemon(out);
    expect(command).toEqual([process.execPath, out]);
    // One module: nothing of computerd's, the vfs's or the sdk's imported from their sources.
    expect(readFileSync(out, "utf8")).not.toMatch(/from "(\.|@computer\/)/);
    const help = (file: string) =>
      execFileSync(process.execPath, [file, "serve", "--help"], { encoding: "utf8" });
    expect(help(out)).toBe(help(bin));
    // A spare loads the FUSE addon and starts the spawner: paths found from the sources' places.
    const spare = spawn(process.execPath, [out, "serve", "--spare"], { stdio: ["pipe", "pipe", "inherit"] });
    const first = await new Promise<string>((resolve) =>
      createInterface({ input: spare.stdout }).once("line", resolve),
    );
    spare.stdin.end();
    await new Promise((resolve) => spare.once("exit", resolve));
    expect(JSON.parse(first)).toMatchObject({ event: "spare" });
    expect(existsSync(out)).toBe(true);
  }, 60_000);
});
