/**
 * `npm run example:pdf-report`: an agent writes a Markdown report and the chart it drew into a
 * computer, runs pandoc in the computer's Linux container to make a PDF, publishes the PDF and
 * prints its public link.
 */
import type { ComputerClient } from "@computer/sdk";
import { connect } from "../shared/connect.ts";
import { main, Steps, type StepTime, succeeded } from "../shared/steps.ts";
import { barChartEps } from "./chart.ts";
import { reportMarkdown, TIMINGS } from "./report.ts";

/** What a run made. */
export interface PdfReport {
  /** The PDF's public link (no token needed until it expires). */
  link: string;
  /** Where the PDF is in the computer. */
  path: string;
  times: StepTime[];
}

/** Writes, renders and publishes the report in computer `id` (created if missing). */
export async function pdfReport(
  client: ComputerClient,
  id = "pdf-report",
  steps = new Steps("pdf-report"),
): Promise<PdfReport> {
  await steps.run("create the computer", () => client.computers.create(id));
  const computer = client.computer(id);
  await steps.run("write report.md and chart.eps", async () => {
    await computer.files.write("report/chart.eps", barChartEps(TIMINGS));
    await computer.files.write(
      "report/report.md",
      reportMarkdown(TIMINGS, new Date().toISOString().slice(0, 10)),
    );
  });
  const result = await steps.run("pandoc → PDF in the container", () =>
    computer.exec.run({
      runtime: "container",
      cwd: "/workspace/report",
      source: "pandoc report.md --pdf-engine=pdfroff -o report.pdf",
      timeoutMs: 120_000,
    }),
  );
  succeeded(result, "pandoc");
  const published = await steps.run("publish report.pdf", () =>
    computer.publish({ path: "report/report.pdf", name: "pdf-report" }),
  );
  return { link: published.url, path: "report/report.pdf", times: steps.times };
}

if (import.meta.main) {
  main("pdf-report", async () => console.log((await pdfReport(connect())).link));
}
