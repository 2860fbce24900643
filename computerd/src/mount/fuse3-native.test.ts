/** Loading the fuse3 addon: a missing or broken build is reported with the command that builds it. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadFuse3At } from "./fuse3-native.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "computerd-fuse3-load-"));
  dirs.push(dir);
  return dir;
}

describe("loadFuse3At", () => {
  it("names the build command when the addon was not built", () => {
    const path = join(tempDir(), "fuse3.node");
    const result = loadFuse3At(path);
    expect("problem" in result && result.problem).toMatch(/is not built/);
    expect("problem" in result && result.problem).toContain("npm run build:native -w computerd");
    expect("problem" in result && result.problem).toContain(path);
  });

  it("says the addon does not load when the file is not a loadable addon", () => {
    const path = join(tempDir(), "fuse3.node");
    writeFileSync(path, "not an ELF object");
    const result = loadFuse3At(path);
    expect("problem" in result && result.problem).toMatch(/does not load/);
    expect("problem" in result && result.problem).toContain("npm run build:native -w computerd");
  });
});
