/**
 * The trend of one scenario over runs (nights): the median of each place per run, one line per
 * place, and the scenario's fleet target in ms as a line where it has one.
 */
import type { Place, ScenarioRow } from "./run-rows.ts";
import { COLORS, renderSvg } from "./svg-chart.ts";

/** One run's point of the trend: when it started and its row for the scenario (if it ran it). */
export interface TrendPoint {
  label: string;
  row?: ScenarioRow;
}

const PLACES: readonly Place[] = ["computerd", "tmpfs", "disk", "fleet"];

/** `n` rounded up to two significant digits, so the axis' top label stays short. */
function roundUp(n: number): number {
  const step = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 1);
  return Math.ceil(n / step) * step;
}

/** The SVG of `name`'s medians over `points`, oldest first. */
export function trendChart(name: string, points: readonly TrendPoint[]): string {
  const places = PLACES.filter((p) => points.some((pt) => pt.row?.times[p]?.median !== undefined));
  const limitMs = points.map((p) => p.row?.limitMs).find((l) => l !== undefined);
  return renderSvg(
    {
      title: { text: name, left: "center", textStyle: { fontSize: 12 } },
      legend: { bottom: 0, itemWidth: 14, textStyle: { fontSize: 10 } },
      grid: { left: 52, right: 14, top: 44, bottom: 44 },
      xAxis: { type: "category", data: points.map((p) => p.label), axisLabel: { fontSize: 9 } },
      yAxis: {
        type: "value",
        name: "ms",
        min: 0,
        // The target line stays in view even when every run is far below it.
        ...(limitMs === undefined
          ? {}
          : { max: (extent: { max: number }) => roundUp(Math.max(extent.max, limitMs) * 1.05) }),
        axisLabel: { fontSize: 9 },
      },
      series: places.map((place, i) => ({
        name: place,
        type: "line",
        symbol: "circle",
        symbolSize: 5,
        itemStyle: { color: COLORS[place] },
        connectNulls: false,
        data: points.map((p) => {
          const m = p.row?.times[place]?.median;
          return m === undefined ? null : Math.round(m * 10) / 10;
        }),
        ...(i === 0 && limitMs !== undefined
          ? {
              markLine: {
                silent: true,
                symbol: "none",
                lineStyle: { color: "#dc2626", type: "dashed" },
                label: { formatter: `target ${limitMs} ms`, fontSize: 9 },
                data: [{ yAxis: limitMs }],
              },
            }
          : {}),
      })),
    },
    380,
    230,
  );
}
