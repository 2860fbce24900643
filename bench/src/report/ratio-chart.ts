/**
 * The chart of one run: for every scenario with a ratio, a bar group of the mount's (or the
 * fleet's) median over tmpfs's and over disk's of the same run, on a log scale, with BENCH.md's
 * target (at most N× disk) drawn as a mark over the group and 1× as a line.
 */
import type { ScenarioRow } from "./run-rows.ts";
import { COLORS, renderSvg } from "./svg-chart.ts";

const round = (n: number | undefined) => (n === undefined ? null : Math.round(n * 1000) / 1000);

/** The SVG; undefined when no scenario has a ratio. */
export function ratioChart(rows: readonly ScenarioRow[], title: string): string | undefined {
  const shown = rows.filter((r) => r.vsDisk !== undefined || r.vsTmpfs !== undefined);
  if (shown.length === 0) return undefined;
  const names = shown.map((r) => (r.group === "fleet" ? `${r.name} (fleet)` : r.name));
  const width = Math.max(720, 70 * shown.length + 160);
  return renderSvg(
    {
      title: { text: title, left: "center", textStyle: { fontSize: 14 } },
      legend: { top: 30, data: ["× tmpfs", "× disk", "target (× disk)"] },
      grid: { left: 60, right: 20, top: 76, bottom: 150 },
      xAxis: {
        type: "category",
        data: names,
        axisLabel: { rotate: 35, interval: 0, fontSize: 11 },
      },
      yAxis: { type: "log", name: "ratio (log)", logBase: 10, min: 0.1 },
      series: [
        {
          name: "× tmpfs",
          type: "bar",
          itemStyle: { color: COLORS.tmpfs },
          data: shown.map((r) => round(r.vsTmpfs)),
        },
        {
          name: "× disk",
          type: "bar",
          itemStyle: { color: COLORS.disk },
          data: shown.map((r) => round(r.vsDisk)),
          markLine: {
            silent: true,
            symbol: "none",
            lineStyle: { color: "#6b7280", type: "dashed" },
            label: { formatter: "1×" },
            data: [{ yAxis: 1 }],
          },
        },
        {
          name: "target (× disk)",
          type: "scatter",
          symbol: "rect",
          symbolSize: [44, 3],
          itemStyle: { color: "#dc2626" },
          data: shown.map((r) => round(r.limitVsDisk)),
        },
      ],
    },
    width,
    460,
  );
}
