/** fs-bench's options: defaults, --quick (every scenario once, smaller), bad input. */
import { describe, expect, it } from "vitest";
import { FLEET_SCENARIOS } from "./fleet-scenarios.ts";
import { parseFsBenchOptions } from "./options.ts";
import { SCENARIOS } from "./scenarios.ts";

const parse = (...argv: string[]) => parseFsBenchOptions(argv, "/out");
const names = (list: readonly { name: string }[] | undefined) => list?.map((s) => s.name);
const ids = (list: readonly { id: string }[] | undefined) => list?.map((s) => s.id);

describe("parseFsBenchOptions", () => {
  it("runs every scenario five times after one warm-up at BENCH.md's sizes, and renders the reports", () => {
    const options = parse();
    expect(options).toMatchObject({
      size: "full",
      reps: 5,
      warmup: 1,
      report: true,
      outDir: "/out",
      diskDir: "/var/tmp",
    });
    expect(names(options?.scenarios)).toEqual(names(SCENARIOS));
    expect(names(options?.fleet)).toEqual(names(FLEET_SCENARIOS));
    expect(names(SCENARIOS)).toEqual(
      expect.arrayContaining(["create 1000 files", "find tree", "npm install (644 packages)"]),
    );
    expect(ids(SCENARIOS)).toEqual(expect.arrayContaining(["git-status-10k", "git-clone", "npm-install"]));
  });

  it("--quick: every scenario once, smaller, with the same ids and names that say the size", () => {
    const quick = parse("--quick", "--no-report");
    expect(quick).toMatchObject({ size: "quick", reps: 1, warmup: 0, report: false });
    expect(ids(quick?.scenarios)).toEqual(ids(SCENARIOS));
    expect(ids(quick?.fleet)).toEqual(ids(FLEET_SCENARIOS));
    expect(names(quick?.scenarios)).toEqual(
      expect.arrayContaining([
        "create 200 files",
        "find tree (10x5x2)",
        "write 16 MiB",
        "git status, 1,000 files (dirty)",
        "npm install (81 packages)",
      ]),
    );
    expect(names(quick?.fleet)).toEqual(
      expect.arrayContaining(["sync fence after 2,000 files", "npm install (81 packages), synced"]),
    );
    const named = parse("--quick", "--scenario", "npm-install,npm-install-fleet");
    expect(ids(named?.scenarios)).toEqual(["npm-install"]);
    expect(ids(named?.fleet)).toEqual(["npm-install-fleet"]);
  });

  it("refuses unknown scenarios and bad counts, naming them", () => {
    expect(() => parse("--scenario", "nope")).toThrow(/unknown scenario "nope"/);
    expect(() => parse("--reps", "0")).toThrow(/--reps must be an integer >= 1/);
    expect(parse("--help")).toBeUndefined();
  });
});
