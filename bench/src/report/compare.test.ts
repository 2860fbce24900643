/**
 * The regression gate on synthetic runs: a real slowdown of the mount or the fleet fails it, a
 * change within the samples' own noise or the machine's drift does not, baselines never do, a
 * new failure does, and the CLI's exit codes follow.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FsBenchDocument } from "../fs-bench/document.ts";
import { compareRuns, formatComparison } from "./compare.ts";
import { noiseThreshold, relativeMedianError } from "./statistics.ts";
import { syntheticRun } from "./testing.ts";

const TIGHT = [500, 505, 495, 502, 498];
const DISK = [400, 410, 390, 405, 395];
const TMPFS = [30, 31, 29, 30.5, 29.5];

const run = (computerd: number[] | string, disk = DISK, fleet: number[] = [300, 305, 295]) =>
  syntheticRun({ scenarios: { create: { computerd, tmpfs: TMPFS, disk } }, fleet: { "fence-1000": fleet } });

const line = (doc: ReturnType<typeof compareRuns>, place: string) =>
  doc.lines.find((l) => l.id === "create" && l.place === place);

describe("noise threshold", () => {
  it("comes from the samples: wider spread, wider threshold; identical samples, none", () => {
    const narrow = noiseThreshold(TIGHT, TIGHT) ?? Number.NaN;
    const wide = noiseThreshold([400, 600, 500, 450, 550], [400, 600, 500, 450, 550]) ?? Number.NaN;
    expect(narrow).toBeGreaterThan(0);
    expect(wide).toBeGreaterThan(narrow * 5);
    expect(noiseThreshold([7, 7, 7], [7, 7, 7])).toBe(0);
  });

  it("is not estimated from fewer than 3 samples", () => {
    expect(relativeMedianError([500, 510])).toBeUndefined();
    expect(noiseThreshold([500], TIGHT)).toBeUndefined();
  });
});

describe("compareRuns", () => {
  it("finds nothing between a run and itself", () => {
    const doc = run(TIGHT);
    const result = compareRuns(doc, doc);
    expect(result.regressions).toEqual([]);
    expect(result.lines.every((l) => l.verdict === "unchanged")).toBe(true);
  });

  it("flags the mount 30 % slower beyond tight noise, and an improvement the other way", () => {
    const slower = compareRuns(run(TIGHT), run(TIGHT.map((ms) => ms * 1.3)));
    expect(slower.regressions.map((l) => `${l.id}@${l.place}`)).toEqual(["create@computerd"]);
    expect(line(slower, "computerd")?.change).toBeCloseTo(0.3, 5);
    const faster = compareRuns(run(TIGHT.map((ms) => ms * 1.3)), run(TIGHT));
    expect(faster.regressions).toEqual([]);
    expect(line(faster, "computerd")?.verdict).toBe("improvement");
  });

  it("does not flag the same 30 % within noisy samples", () => {
    const noisy = [300, 700, 500, 420, 610];
    const result = compareRuns(run(noisy), run(noisy.map((ms) => ms * 1.3)));
    expect(result.regressions).toEqual([]);
    expect(line(result, "computerd")?.verdict).toBe("unchanged");
    expect(line(result, "computerd")?.threshold).toBeGreaterThan(0.3);
  });

  it("widens the threshold by how far the baselines moved (machine drift)", () => {
    const slowMachine = DISK.map((ms) => ms * 1.4);
    const result = compareRuns(
      run(TIGHT),
      run(
        TIGHT.map((ms) => ms * 1.3),
        slowMachine,
      ),
    );
    expect(result.regressions).toEqual([]);
    expect(line(result, "computerd")?.note).toMatch(/machine drift 40\.0%/);
  });

  it("never fails the gate for a slower baseline", () => {
    const result = compareRuns(
      run(TIGHT),
      run(
        TIGHT,
        DISK.map((ms) => ms * 2),
      ),
    );
    expect(line(result, "disk")?.verdict).toBe("regression");
    expect(line(result, "disk")?.gated).toBe(false);
    expect(result.regressions).toEqual([]);
  });

  it("fails on a scenario that worked and fails now, and on a slower fleet scenario", () => {
    expect(compareRuns(run(TIGHT), run("run: exit code 1")).regressions.map((l) => l.verdict)).toEqual([
      "failed",
    ]);
    const fleet = compareRuns(run(TIGHT), run(TIGHT, DISK, [600, 610, 590]));
    expect(fleet.regressions.map((l) => `${l.id}@${l.place}`)).toEqual(["fence-1000@fleet"]);
  });

  it("does not judge single-sample runs (quick mode) and marks new and gone scenarios", () => {
    const quick = syntheticRun({ scenarios: { create: { computerd: [900], tmpfs: [30], disk: [400] } } });
    const other = syntheticRun({ scenarios: { rm: { computerd: [100], tmpfs: [10], disk: [50] } } });
    const result = compareRuns(
      quick,
      syntheticRun({ scenarios: { create: { computerd: [100], tmpfs: [30], disk: [400] } } }),
    );
    expect(line(result, "computerd")?.verdict).toBe("not judged");
    const moved = compareRuns(quick, other);
    expect(moved.lines.find((l) => l.id === "rm")?.verdict).toBe("new");
    expect(moved.lines.find((l) => l.id === "create")?.verdict).toBe("gone");
    expect(moved.regressions).toEqual([]);
  });

  it("never regresses when every sample of ours got faster or stayed (property)", () => {
    const samples = fc.array(fc.double({ min: 1, max: 10_000, noNaN: true }), { minLength: 3, maxLength: 9 });
    fc.assert(
      fc.property(samples, fc.double({ min: 0.2, max: 1, noNaN: true }), (before, factor) => {
        const result = compareRuns(run(before), run(before.map((ms) => ms * factor)));
        return result.regressions.length === 0;
      }),
    );
  });

  it("prints a table naming each regression", () => {
    const text = formatComparison(compareRuns(run(TIGHT), run(TIGHT.map((ms) => ms * 1.3))));
    expect(text).toMatch(/create 1000 files\s+computerd\s+500\s+650\s+\+30\.0%\s+±[\d.]+%\s+REGRESSION/);
    expect(text).toContain("1 regression: create 1000 files (computerd).");
  });
});

describe("npm run bench:compare", () => {
  const dir = mkdtempSync(join(tmpdir(), "bench-compare-"));
  const write = (name: string, doc: FsBenchDocument | string) => {
    const path = join(dir, name);
    writeFileSync(path, typeof doc === "string" ? doc : JSON.stringify(doc));
    return path;
  };
  const repo = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
  const npmIn = (...args: string[]) =>
    spawnSync("npm", ["run", "--silent", "bench:compare", "--", ...args], { cwd: repo, encoding: "utf8" });

  it("exits 0 without a regression and 1 with one, printing the table", () => {
    const old = write("old.json", run(TIGHT));
    const same = npmIn(old, write("same.json", run(TIGHT)));
    expect(same.status, same.stderr).toBe(0);
    expect(same.stdout).toContain("No regression.");
    // A path relative to where npm was started (the workspace script itself runs in bench/).
    const worse = npmIn(relative(repo, old), write("worse.json", run(TIGHT.map((ms) => ms * 1.5))));
    expect(worse.status, worse.stderr).toBe(1);
    expect(worse.stdout).toContain("REGRESSION");
  });

  it("exits 2 on a file that is not a run, naming it", () => {
    const bad = npmIn(write("bad.json", '{"schema":"other"}'), write("ok.json", run(TIGHT)));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/bad\.json: not an fs-bench document/);
    const usage = npmIn("only-one.json");
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("Usage: npm run bench:compare -- OLD.json NEW.json");
  });
});
