/**
 * Opening an HTML report in Debian's headless Chromium (playwright-core, no browser download):
 * what the charts look like once rendered, and a screenshot of the page.
 */
import { launchChromium } from "@computer/fleet/chromium";

/** Where Debian's chromium package installs the browser (scripts/ensure-deps.sh installs it). */
export { CHROMIUM } from "@computer/fleet/chromium";

/** One rendered chart: its box on the page and how many marks (bars, lines, points) it drew. */
export interface RenderedChart {
  selector: string;
  width: number;
  height: number;
  /** SVG path and rect elements: each bar, line, symbol and axis is one. */
  shapes: number;
  /** The visible text of the chart (titles, axis labels, legend). */
  text: string;
}

/** Loads `file` in headless Chromium, measures every `.chart svg` and saves a full-page screenshot. */
export async function renderInChromium(file: string, screenshot: string): Promise<RenderedChart[]> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Self-contained: any request to the network would be a bug in the report.
    await page.route(/^https?:/, (route) => route.abort());
    await page.goto(`file://${file}`);
    const charts = await page.$$eval(".chart", (divs) =>
      divs.map((div, i) => {
        const svg = div.querySelector("svg");
        const box = svg?.getBoundingClientRect();
        return {
          selector: `.chart:nth-of-type(${i + 1}) ${div.className}`,
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          shapes: svg ? svg.querySelectorAll("path, rect").length : 0,
          text: [...(svg?.querySelectorAll("text") ?? [])].map((t) => t.textContent).join(" "),
        };
      }),
    );
    await page.screenshot({ path: screenshot, fullPage: true });
    return charts;
  } finally {
    await browser.close();
  }
}
