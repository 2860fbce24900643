/** fs-bench's options: defaults, --quick without the heavy scenarios unless named, bad input. */
import { describe, expect, it } from "vitest";
import { FLEET_SCENARIOS } from "./fleet-scenarios.ts";
import { parseFsBenchOptions } from "./options.ts";
import { SCENARIOS } from "./scenarios.ts";

const parse = (...argv: string[]) => parseFsBenchOptions(argv, "/out");

describe("parseFsBenchOptions", () => {
  it("runs every scenario five times after one warm-up, and renders the reports", () => {
    const options = parse();
    expect(options).toMatchObject({ reps: 5, warmup: 1, report: true, outDir: "/out", diskDir: "/var/tmp" });
    expect(options?.scenarios).toEqual(SCENARIOS);
    expect(options?.fleet).toEqual(FLEET_SCENARIOS);
    expect(SCENARIOS.map((s) => s.id)).toEqual(
      expect.arrayContaining(["git-status-10k", "git-clone", "npm-install"]),
    );
  });

  it("--quick: once each, without the npm installs unless --scenario names them", () => {
    const quick = parse("--quick", "--no-report");
    expect(quick).toMatchObject({ reps: 1, warmup: 0, report: false });
    expect(quick?.scenarios.map((s) => s.id)).not.toContain("npm-install");
    expect(quick?.fleet.map((s) => s.id)).not.toContain("npm-install-fleet");
    expect(quick?.scenarios.length).toBe(SCENARIOS.length - 1);
    const named = parse("--quick", "--scenario", "npm-install,npm-install-fleet");
    expect(named?.scenarios.map((s) => s.id)).toEqual(["npm-install"]);
    expect(named?.fleet.map((s) => s.id)).toEqual(["npm-install-fleet"]);
  });

  it("refuses unknown scenarios and bad counts, naming them", () => {
    expect(() => parse("--scenario", "nope")).toThrow(/unknown scenario "nope"/);
    expect(() => parse("--reps", "0")).toThrow(/--reps must be an integer >= 1/);
    expect(parse("--help")).toBeUndefined();
  });
});
