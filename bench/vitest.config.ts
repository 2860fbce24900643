/**
 * vitest project "bench": the benchmarks' own logic on synthetic runs — the reports (Markdown,
 * SVG, the HTML page opened in headless Chromium), the regression gate, options — and the
 * nightly workflow's file. Timings are never asserted here; bench/ measures them.
 */

import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [sourceConditionPlugin()],
  test: {
    name: "bench",
    environment: "node",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
  },
});
