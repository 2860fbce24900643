/** Source hashes: content and path sensitive, order and test-file blind, loud on missing paths. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashSources } from "./source-hash.ts";

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "infra-hash-"));
  mkdirSync(join(root, "src/sub"), { recursive: true });
  writeFileSync(join(root, "src/a.ts"), "a");
  writeFileSync(join(root, "src/sub/b.ts"), "b");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("hashSources", () => {
  it("is stable and independent of the order of the paths given", () => {
    const first = hashSources(root, ["src/a.ts", "src/sub"]);
    expect(hashSources(root, ["src/sub", "src/a.ts"])).toBe(first);
    expect(hashSources(root, ["src"])).toBe(first);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes with a file's content and with a renamed file", () => {
    const before = hashSources(root, ["src"]);
    writeFileSync(join(root, "src/a.ts"), "A");
    const edited = hashSources(root, ["src"]);
    expect(edited).not.toBe(before);
    rmSync(join(root, "src/a.ts"));
    writeFileSync(join(root, "src/c.ts"), "A");
    expect(hashSources(root, ["src"])).not.toBe(edited);
  });

  it("ignores tests and node_modules", () => {
    const before = hashSources(root, ["src"]);
    writeFileSync(join(root, "src/a.test.ts"), "test");
    mkdirSync(join(root, "src/node_modules"));
    writeFileSync(join(root, "src/node_modules/x.js"), "x");
    expect(hashSources(root, ["src"])).toBe(before);
  });

  it("throws on a missing path", () => {
    expect(() => hashSources(root, ["nope"])).toThrow(/ENOENT/);
  });
});
