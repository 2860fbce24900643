/** Tests for the house-style file check: kebab-case names and the .ts size limit. */
import { describe, expect, it } from "vitest";
import { findOffences, isKebabName, MAX_TS_LINES } from "./check-files.ts";

describe("isKebabName", () => {
  it("accepts kebab-case, dotted kebab parts, dotfiles and conventional names", () => {
    for (const name of [
      "write-buffer.ts",
      "files.security.test.ts",
      ".dev.vars",
      "README.md",
      "API-DRAFT.md",
      "Makefile",
      "v1",
    ]) {
      expect(isKebabName(name), name).toBe(true);
    }
  });
  it("rejects camelCase, PascalCase, snake_case and spaces", () => {
    for (const name of [
      "writeBuffer.ts",
      "WriteBuffer.ts",
      "write_buffer.ts",
      "a b.ts",
      "-x.ts",
      "a--b.ts",
    ]) {
      expect(isKebabName(name), name).toBe(false);
    }
  });
});

describe("findOffences", () => {
  it("reports bad names under checked roots only, each bad folder once", () => {
    const offences = findOffences(
      ["vfs/src/badDir/a.ts", "vfs/src/badDir/b.ts", "docs/NotChecked.ts", "worker/src/okFile.ts"],
      () => 1,
    );
    expect(offences.map((o) => o.path)).toEqual(["vfs/src/badDir", "worker/src/okFile.ts"]);
  });
  it("reports .ts files over the line limit", () => {
    const offences = findOffences(["bench/src/big.ts", "bench/src/ok.ts", "bench/data.json"], (p) =>
      p.endsWith("big.ts") ? MAX_TS_LINES + 1 : MAX_TS_LINES,
    );
    expect(offences).toEqual([
      { path: "bench/src/big.ts", problem: `${MAX_TS_LINES + 1} lines (max ${MAX_TS_LINES})` },
    ]);
  });
});
