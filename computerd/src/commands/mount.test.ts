/** `computerd mount` on the command line: --help prints the usage, a bad option says why (exit 2). */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { USAGE } from "./mount.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

function computerd(...args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", cwd: "/" });
}

describe("computerd mount options", () => {
  it.each(["--help", "-h"])("%s prints every option and exits 0", (flag) => {
    const run = computerd("mount", flag);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(USAGE);
    for (const option of ["--state", "--mount-point", "--backend", "--page-cache", "--debug"])
      expect(run.stdout).toContain(option);
  });

  it("an unknown option is named, with the usage, and exits 2 (no stack trace)", () => {
    const run = computerd("mount", "--bogus");
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("Unknown option '--bogus'");
    expect(run.stderr).toContain(USAGE);
    expect(run.stderr).not.toContain("ERR_PARSE_ARGS");
  });
});
