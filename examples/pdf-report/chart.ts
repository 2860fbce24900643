/**
 * The report's image: a grouped bar chart drawn as EPS (PostScript text). EPS because it is
 * the image format pandoc's ms writer embeds, which the pdfroff engine turns into a vector
 * picture in the PDF; any other format would print as `[IMAGE: …]`.
 */

/** One group of bars: a label and one value per series. */
export interface ChartRow {
  label: string;
  values: readonly number[];
}

/** What the chart shows. */
export interface Chart {
  title: string;
  series: readonly string[];
  rows: readonly ChartRow[];
}

const WIDTH = 420;
const HEIGHT = 240;
const PLOT = { left: 30, bottom: 40, height: 150 };
const COLOURS = ["0.16 0.38 0.75", "0.93 0.52 0.13", "0.25 0.65 0.35"];

/** `text` as a PostScript string literal. */
function psString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** The chart as an EPS document. */
export function barChartEps(chart: Chart): string {
  const max = Math.max(...chart.rows.flatMap((row) => row.values), 1e-9);
  const groupWidth = (WIDTH - PLOT.left - 10) / chart.rows.length;
  const barWidth = (groupWidth * 0.7) / chart.series.length;
  const colour = (i: number) => `${COLOURS[i % COLOURS.length]} setrgbcolor`;
  const out = [
    "%!PS-Adobe-3.0 EPSF-3.0",
    `%%BoundingBox: 0 0 ${WIDTH} ${HEIGHT}`,
    "%%EndComments",
    "/Helvetica findfont 9 scalefont setfont",
    `0 setgray ${PLOT.left} ${HEIGHT - 18} moveto /Helvetica-Bold findfont 11 scalefont setfont ${psString(chart.title)} show`,
    "/Helvetica findfont 9 scalefont setfont",
    `0.5 setlinewidth ${PLOT.left} ${PLOT.bottom} moveto ${WIDTH - 10} ${PLOT.bottom} lineto stroke`,
  ];
  chart.rows.forEach((row, g) => {
    const x0 = PLOT.left + g * groupWidth + groupWidth * 0.15;
    row.values.forEach((value, s) => {
      const h = (value / max) * PLOT.height;
      out.push(
        `${colour(s)} ${(x0 + s * barWidth).toFixed(1)} ${PLOT.bottom} ${barWidth.toFixed(1)} ${h.toFixed(1)} rectfill`,
      );
    });
    out.push(`0 setgray ${x0.toFixed(1)} ${PLOT.bottom - 14} moveto ${psString(row.label)} show`);
  });
  chart.series.forEach((name, s) => {
    const x = PLOT.left + s * 110;
    out.push(`${colour(s)} ${x} 8 8 8 rectfill 0 setgray ${x + 12} 8 moveto ${psString(name)} show`);
  });
  out.push("showpage", "%%EOF", "");
  return out.join("\n");
}
