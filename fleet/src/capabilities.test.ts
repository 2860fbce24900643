import { describe, expect, it } from "vitest";
import { canRun, capabilitiesRequired } from "./capabilities.ts";

describe("capabilitiesRequired", () => {
  it("is true on CI and with COMPUTER_REQUIRE=all, false elsewhere", () => {
    expect(capabilitiesRequired({ CI: "true" })).toBe(true);
    expect(capabilitiesRequired({ CI: "1" })).toBe(true);
    expect(capabilitiesRequired({ COMPUTER_REQUIRE: "all" })).toBe(true);
    expect(capabilitiesRequired({})).toBe(false);
    expect(capabilitiesRequired({ CI: "" })).toBe(false);
    expect(capabilitiesRequired({ CI: "false" })).toBe(false);
    expect(capabilitiesRequired({ COMPUTER_REQUIRE: "none" })).toBe(false);
  });
});

describe("canRun", () => {
  it("runs a suite that lacks nothing, silently, even on CI", () => {
    const warnings: string[] = [];
    expect(canRun("the suite", [], { CI: "true" }, (m) => warnings.push(m))).toBe(true);
    expect(canRun("the suite", [], {}, (m) => warnings.push(m))).toBe(true);
    expect(warnings).toEqual([]);
  });

  it("skips a suite that lacks something outside CI, and says which and why", () => {
    const warnings: string[] = [];
    expect(canRun("the fuse3 suite", ["/dev/fuse", "root"], {}, (m) => warnings.push(m))).toBe(false);
    expect(warnings).toEqual([
      "SKIP the fuse3 suite needs /dev/fuse, root, missing on this machine (COMPUTER_REQUIRE=all makes this a failure)",
    ]);
  });

  it("fails on CI and with COMPUTER_REQUIRE=all instead of skipping", () => {
    for (const env of [{ CI: "true" }, { COMPUTER_REQUIRE: "all" }]) {
      expect(() => canRun("the fuse3 suite", ["/dev/fuse"], env, () => {})).toThrow(
        "the fuse3 suite needs /dev/fuse, missing on this machine (CI or COMPUTER_REQUIRE=all: a missing capability fails the run)",
      );
    }
  });
});
