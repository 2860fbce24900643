/**
 * Charts as standalone SVG, rendered by Apache ECharts on the server (its SSR mode needs no
 * DOM): the ratios of one run (a bar group per scenario, the targets as marks) and the trend of
 * one scenario over runs.
 */

import type { EChartsOption } from "echarts";
import * as echarts from "echarts";

/** Series colours, one per place, the same in every chart. */
export const COLORS = { computerd: "#2563eb", tmpfs: "#16a34a", disk: "#d97706", fleet: "#7c3aed" } as const;

/** Renders `option` to an SVG document of `width` × `height` px. */
export function renderSvg(option: EChartsOption, width: number, height: number): string {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    chart.setOption({ animation: false, backgroundColor: "#ffffff", ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
