/**
 * vitest project "examples": the examples' own unit tests (no fleet). The runs of each example
 * against a real local fleet are the `*.e2e.test.ts` files of project "examples-e2e".
 */

import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [sourceConditionPlugin()],
  test: {
    name: "examples",
    environment: "node",
    include: ["*/**/*.test.ts"],
    exclude: ["**/*.e2e.test.ts", "**/node_modules/**", "worker-project/project/**"],
  },
});
