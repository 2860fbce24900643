/** The EPS bar chart: a well-formed EPS header, bars scaled to the largest value, labels escaped. */
import { describe, expect, it } from "vitest";
import { barChartEps } from "./chart.ts";

describe("barChartEps", () => {
  const eps = barChartEps({
    title: "Sizes (MB)",
    series: ["a", "b"],
    rows: [
      { label: "one", values: [10, 5] },
      { label: "two (x)", values: [2, 0] },
    ],
  });

  it("is an EPS document with a bounding box, ending its page", () => {
    expect(eps.startsWith("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 420 240\n")).toBe(true);
    expect(eps.trimEnd().endsWith("showpage\n%%EOF")).toBe(true);
  });

  it("draws one bar per value, the largest at full height, in proportion", () => {
    const heights = [...eps.matchAll(/ (\d+\.\d) rectfill/g)].map((m) => Number(m[1]));
    // Four bars, then the two legend squares (8 high).
    expect(heights.slice(0, 4)).toEqual([150, 75, 30, 0]);
  });

  it("escapes parentheses in labels", () => {
    expect(eps).toContain("(two \\(x\\)) show");
    expect(eps).toContain("(Sizes \\(MB\\)) show");
  });
});
