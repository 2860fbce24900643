/**
 * The reports of synthetic runs: the rows and ratios, the Markdown table, the SVG chart with
 * its bars and target marks, and the HTML page (self-contained, latest run, trend over runs).
 */
import { describe, expect, it } from "vitest";
import { htmlReport } from "./html-report.ts";
import { markdownReport } from "./markdown.ts";
import { ratioChart } from "./ratio-chart.ts";
import { runRows } from "./run-rows.ts";
import { syntheticRun } from "./testing.ts";

const night = (computerd: number, startedAt = "2026-11-30T02:00:00.000Z") =>
  syntheticRun({
    startedAt,
    scenarios: {
      create: {
        computerd: [computerd, computerd + 10, computerd - 10],
        tmpfs: [30, 30, 30],
        disk: [400, 400, 400],
      },
      "write-64": {
        computerd: [100, 100, 100],
        tmpfs: [50, 50, 50],
        disk: "run: exit code 1: No space left",
      },
    },
    fleet: { "fence-1000": [300, 320, 310] },
  });

describe("runRows", () => {
  it("takes medians, ratios, targets and counter medians from the samples", () => {
    const [create, write, fence] = runRows(night(500));
    expect(create).toMatchObject({ id: "create", vsDisk: 1.25, limitVsDisk: 1, met: false });
    expect(create?.vsTmpfs).toBeCloseTo(500 / 30);
    expect(create?.times.computerd?.median).toBe(500);
    expect(create?.counters).toMatchObject({
      fuse: 16,
      "fuse.lookup": 11,
      "fuse.create": 5,
      sql: 40,
      storedBytes: 4096,
      cpuMs: 121,
    });
    expect(write?.times.disk?.error).toContain("No space left");
    expect(write?.vsDisk).toBeUndefined();
    expect(fence).toMatchObject({ group: "fleet", limitMs: 2000, met: true, counters: { batches: 3 } });
  });
});

describe("markdownReport", () => {
  it("is a GFM table with every place, the failure and the counters", () => {
    const md = markdownReport(night(500), "fs-x.svg");
    const lines = md.split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^\| scenario +\| place +\| +median ms \|/));
    expect(md).toMatch(
      /\| create 1000 files +\| computerd \| +500 \|.*\| +16\.7x \| +1\.25x \| ≤ 1x disk +\| NO +\| FUSE 16 \(lookup 11, create 5\), SQL 40, stored 4\.0 KiB, CPU ms 121/,
    );
    expect(md).toMatch(/\| +\| disk +\| FAILED: run: exit code 1: No space left/);
    expect(md).toMatch(/\| sync fence after 1,000 files \| fleet +\| +310 \|.*< 2000 ms +\| yes/);
    expect(md).toContain("![ratios to tmpfs and disk](fs-x.svg)");
  });
});

describe("ratioChart", () => {
  it("draws one bar group per scenario with ratios and a target mark each", () => {
    const svg = ratioChart(runRows(night(500)), "title") ?? "";
    expect(svg.startsWith("<svg")).toBe(true);
    for (const label of ["create 1000 files", "write 64 MiB", "× tmpfs", "× disk", "target (× disk)", "1×"])
      expect(svg).toContain(label);
    expect(ratioChart([], "none")).toBeUndefined();
  });
});

describe("htmlReport", () => {
  it("is one self-contained page: latest table and chart, a trend per scenario over the runs", () => {
    const html = htmlReport([
      night(400, "2026-11-28T02:00:00.000Z"),
      night(450, "2026-11-29T02:00:00.000Z"),
      night(500),
    ]);
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    expect(html).toContain("Trend over 3 runs");
    expect(html.match(/<div class="chart trend"/g)).toHaveLength(3);
    expect(html.match(/<svg/g)).toHaveLength(4);
    expect(html).toContain("11-28 02:00");
    expect(html).toMatch(/<td class="num">500<\/td>/);
    expect(html).toContain('<td class="miss">NO</td>');
    expect(() => htmlReport([])).toThrow(/no runs/);
  });
});
