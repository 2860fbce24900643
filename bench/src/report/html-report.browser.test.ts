/**
 * The HTML report of synthetic runs opened in Debian's headless Chromium: the ratio chart and
 * one trend chart per scenario render with their bars, lines and labels, nothing is fetched,
 * and a screenshot is kept in bench/results/report-screenshot.png (a CI artifact).
 */

import { existsSync, mkdirSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { canRun } from "@computer/fleet/capabilities";
import { describe, expect, it } from "vitest";
import { CHROMIUM, renderInChromium } from "./browser.ts";
import { syntheticRun } from "./testing.ts";
import { writeHtmlReport } from "./write-reports.ts";

const RESULTS = fileURLToPath(new URL("../../results", import.meta.url));
const SCREENSHOT = join(RESULTS, "report-screenshot.png");

const nights = [0.9, 1, 1.2].map((f, i) =>
  syntheticRun({
    startedAt: `2026-11-2${7 + i}T02:00:00.000Z`,
    commit: `${i}`.repeat(40),
    scenarios: {
      create: { computerd: [500 * f, 510 * f, 490 * f], tmpfs: [30, 31, 29], disk: [400, 410, 390] },
      "write-64": { computerd: [90 * f, 92 * f, 88 * f], tmpfs: [50, 51, 49], disk: [40, 41, 39] },
      git: { computerd: [700 * f, 720 * f, 690 * f], tmpfs: [40, 41, 39], disk: [500, 520, 480] },
    },
    fleet: { "fence-1000": [300 * f, 310 * f, 290 * f] },
  }),
);

describe.skipIf(!canRun("the HTML report in headless Chromium", existsSync(CHROMIUM) ? [] : [CHROMIUM]))(
  "HTML report in headless Chromium",
  () => {
    it("renders the ratio chart and a trend chart per scenario, and keeps a screenshot", async () => {
      const dir = mkdtempSync(join(tmpdir(), "bench-report-"));
      const page = writeHtmlReport(nights, join(dir, "report.html"));
      mkdirSync(RESULTS, { recursive: true });
      const charts = await renderInChromium(page, SCREENSHOT);
      expect(charts.map((c) => c.selector.split(" ").at(-1))).toEqual([
        "ratios",
        "trend",
        "trend",
        "trend",
        "trend",
      ]);
      for (const chart of charts) {
        expect(chart.width, chart.selector).toBeGreaterThan(300);
        expect(chart.height, chart.selector).toBeGreaterThan(200);
      }
      const [ratios, ...trends] = charts;
      // 3 scenarios × 2 bars, 3 target marks, axes and legend: well over a dozen shapes.
      expect(ratios?.shapes).toBeGreaterThan(15);
      expect(ratios?.text).toContain("create 1000 files");
      expect(ratios?.text).toContain("target (× disk)");
      expect(trends.map((t) => t.text.match(/11-2\d 02:00/g)?.length)).toEqual([3, 3, 3, 3]);
      expect(trends[3]?.text).toContain("target 2000 ms");
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    });
  },
);
