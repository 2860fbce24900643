/**
 * The pdf-report example on a real local fleet with containers: the published link serves the
 * PDF to anyone, and its text (pdftotext) has the report's title, headings, every table cell
 * and the chart's own title (the generated image is in the PDF).
 */
import { execFileSync } from "node:child_process";
import { type Fleet, startFleet } from "@computer/fleet";
import { ComputerClient } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runContainerExamples } from "../shared/container-capable.ts";
import { Steps } from "../shared/steps.ts";
import { pdfReport } from "./pdf-report.ts";
import { TIMINGS, TITLE } from "./report.ts";

describe.runIf(runContainerExamples)("pdf-report", () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: true });
  });

  afterAll(async () => {
    await fleet?.stop();
  });

  it("publishes a PDF whose text has the title, the headings and every cell of the table", async () => {
    const client = new ComputerClient({ url: fleet.url, token: fleet.adminToken });
    const report = await pdfReport(client, "pdf-report-e2e", new Steps("pdf-report", () => {}));
    const res = await fetch(report.link);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");

    const text = execFileSync("pdftotext", ["-", "-"], { input: pdf, encoding: "utf8" });
    for (const heading of [TITLE, "Summary", "Timings", "Method", "Chart", "Seconds per build step"]) {
      expect(text).toContain(heading);
    }
    expect(text).toContain("const speedup = (before: number, after: number) => before / after;");
    for (const row of TIMINGS.rows) {
      expect(text).toContain(row.label);
      for (const value of row.values) expect(text).toContain(value.toFixed(1));
    }
  });
});
